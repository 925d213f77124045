"""Provers over the real V1/V2/V5/V6 sets and over a generated stream whose key rotates, on disk
and written into an in-memory store (no emulator)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.proofs.from_files import DirectoryProver
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.data_dir import real_data_dir
from tests.unit.store.fakes import ConditionalMemoryGateway

REAL_SETS = ("v1", "v2", "v5", "v6")
ROTATING = GeneratorConfig(nodes=4, periods=8, transactions=6, seed=11)
"""Blocks 0-7; one node's key rotates through a 0.0.102 update halfway."""


def real_book_path(folder: str) -> Path:
    data = real_data_dir()
    if folder in ("v1", "v2"):
        name: str = json.loads((data / folder / "EXPECTED.json").read_text())["address_book"]
        return data / name
    return data / {"v5": "addressbook/test-resources-testnet.bin", "v6": "addressbook/test-v6-sidecar-4n.bin"}[folder]


@dataclass(frozen=True)
class RealSet:
    folder: str
    book: bytes
    prover: DirectoryProver


@pytest.fixture(scope="session", params=REAL_SETS)
def real_set(request: pytest.FixtureRequest) -> RealSet:
    folder: str = request.param
    book = real_book_path(folder).read_bytes()
    return RealSet(folder, book, DirectoryProver(real_data_dir() / folder, book))


@pytest.fixture(scope="session")
def v6_set() -> RealSet:
    book = real_book_path("v6").read_bytes()
    return RealSet("v6", book, DirectoryProver(real_data_dir() / "v6", book))


@pytest.fixture(scope="session")
def rotating_stream() -> GeneratedStream:
    return generate_stream(ROTATING)


@pytest.fixture(scope="session")
def rotating_dir(rotating_stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rotating-stream")
    write_stream(rotating_stream, folder)
    return folder


@pytest.fixture(scope="session")
def rotating_store(rotating_dir: Path) -> ConditionalMemoryGateway:
    """The rotating stream as the pipeline stores it: history rows, book change rows, books applied."""
    gateway = ConditionalMemoryGateway()
    bootstrap = parse_address_book((rotating_dir / "address-book.bin").read_bytes())
    history = AddressBookHistory(gateway, bootstrap)
    results = list(verify_stream(find_local_periods(rotating_dir), bootstrap))
    blocks = [r.report.block for r in results if r.report.block is not None]
    assert len(blocks) == ROTATING.periods
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    for block in blocks:
        history.record_block(block)
    history.advance(blocks[-1].block_number)
    return gateway
