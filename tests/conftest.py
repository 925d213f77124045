"""Shared fixtures. Emulator fixtures live in tests/fixtures/emulators.py (a pytest plugin)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream

from tests.data_dir import real_data_dir

pytest_plugins = ["tests.fixtures.emulators"]


@pytest.fixture(scope="session")
def hedera_data() -> Path:
    """The real data folder. Missing data fails the test (never skips): conformance must run."""
    path = real_data_dir()
    missing = [name for name in ("v1", "v2", "v5", "v6", "addressbook", "errata/mainnet") if not (path / name).is_dir()]
    if missing:
        pytest.fail(
            f"real Hedera test data not found at {path} (missing {', '.join(missing)}); set "
            "HEDERA_HISTORY_TEST_DATA to the folder holding v1/, v2/, v5/, v6/, signature/, addressbook/ and errata/"
        )
    return path


@pytest.fixture(scope="session")
def generated_stream() -> GeneratedStream:
    """A small signed V6 stream with ground truth (docs/generator.md): 4 nodes, blocks 0-5 of 24
    items, node 0.0.3's key rotated by a 0.0.102 update in block 3 (new book from block 4)."""
    return generate_stream(GeneratorConfig(nodes=4, periods=6, transactions=24, seed=0))


@pytest.fixture(scope="session")
def generated_stream_dir(generated_stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``generated_stream`` written out: recordstreams/, address-book.bin, keys/, ground-truth.json."""
    out = tmp_path_factory.mktemp("generated-stream")
    write_stream(generated_stream, out)
    return out


@pytest.fixture(scope="session")
def generated_cutover_stream() -> GeneratedStream:
    """A network that cuts over (docs/generator.md): 4 nodes, 24 items a period, record files 0-2
    (block 0 publishing the TSS ledger id), wrapped record blocks 3-4 (the key rotation in block 4),
    TSS-signed native blocks 5-7."""
    config = GeneratorConfig(nodes=4, periods=8, transactions=24, seed=5, cutover_after=3, wrapped_periods=2)
    return generate_stream(config)


@pytest.fixture(scope="session")
def generated_cutover_stream_dir(
    generated_cutover_stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """``generated_cutover_stream`` written out: recordstreams/, demo/block/, address-book.bin,
    ledger-id-publication.bin, keys/, ground-truth.json."""
    out = tmp_path_factory.mktemp("generated-cutover-stream")
    write_stream(generated_cutover_stream, out)
    return out
