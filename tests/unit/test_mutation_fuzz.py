"""The bounded mutation fuzz (the full run: ``python -m bench.fuzz --count 100000``) and the leaks
it found, each pinned by its own case."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.derived.snapshot import parse_snapshot
from hedera_history.errors import AddressBookError, ConfigError

from bench import fuzz


def test_a_bounded_fuzz_run_finds_no_untyped_error_and_no_accepted_change(hedera_data: Path) -> None:
    report = fuzz.run(4000, seed=13, data_root=hedera_data)
    assert report.samples == []
    assert report.counts[fuzz.UNTYPED] == 0
    assert report.counts[fuzz.DIFFERENT] == 0
    assert report.mutations == 4000
    kinds = {"record", "sidecar", "signature", "address_book", "block", "errata", "missing_transactions", "snapshot"}
    assert kinds <= set(report.by_kind)
    assert report.counts[fuzz.REJECTED] > 0 and report.counts[fuzz.HASH_CHANGED] > 0


def test_the_fuzz_is_deterministic(hedera_data: Path) -> None:
    first = fuzz.run(300, seed=5, data_root=hedera_data)
    second = fuzz.run(300, seed=5, data_root=hedera_data)
    assert first.counts == second.counts


@pytest.mark.parametrize("bit", [0, 1, 2])
def test_a_book_key_of_an_unknown_algorithm_is_an_address_book_error(hedera_data: Path, bit: int) -> None:
    # In this real book byte 47 lies in the first key's algorithm identifier: the flip names an
    # algorithm `cryptography` does not support, which it reported with its own exception.
    data = bytearray((hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes())
    data[47] ^= 1 << bit
    with pytest.raises(AddressBookError, match="Unknown key type"):
        parse_address_book(bytes(data), "test-v6-sidecar-4n.bin")


def test_every_real_book_with_byte_47_flipped_is_refused_typed(hedera_data: Path) -> None:
    for path in sorted((hedera_data / "addressbook").glob("*.bin")):
        for bit in range(8):
            data = bytearray(path.read_bytes())
            data[47] ^= 1 << bit
            with pytest.raises(AddressBookError):
                parse_address_book(bytes(data), path.name)


@pytest.mark.parametrize(
    "text", [b'{"consensus_ns": 1, "balances": {"0.0.2": 1e999}}', b'{"consensus_ns": 1, "balances": ' + b"[" * 100_000]
)
def test_a_snapshot_with_an_infinite_or_too_deep_value_is_a_config_error(text: bytes) -> None:
    with pytest.raises(ConfigError):
        parse_snapshot(text, "snapshot.json")
