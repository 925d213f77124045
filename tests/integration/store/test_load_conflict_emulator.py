"""``load`` refuses a block whose number the tables already hold with another block, as ingest and
the backfill do (``ConflictingBlockError``): loading a second stream into the tables of a first one
exits 1 naming the block and both hashes, and leaves every cell of the first as it was. Loading the
same stream again is no conflict: it writes the same cells."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.blocks import verify_blocks
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import PROJECT
from tests.helpers.bigtable_cells import describe_difference, history_cells

V6_BOOK = "addressbook/test-v6-sidecar-4n.bin"


def _load(instance: Any, prefix: str, folder: Path, *args: str) -> Any:
    command = ["load", str(folder), "--instance", instance.instance_id, "--table-prefix", prefix, *args]
    return CliRunner().invoke(cli, command, catch_exceptions=False)


def _stored_hash(instance: Any, prefix: str, number: int) -> bytes:
    gateway = gateway_for_instance(instance, Settings(table_prefix=prefix))
    try:
        return HistoryReader(gateway).shown_hashes([number])[number]
    finally:
        gateway.close()


def _refusal(output: str, number: int, stored: bytes, found: bytes) -> None:
    text = " ".join(output.split())  # the console wraps long lines
    assert f"block {number} is already stored with hash {stored.hex()[:16]}" in text, text
    assert f"this one's is {found.hex()[:16]}" in text, text


def test_a_second_record_stream_into_the_same_tables_is_refused(
    bigtable_instance: Any, generated_stream_dir: Path, hedera_data: Path
) -> None:
    book = str(generated_stream_dir / "address-book.bin")
    assert _load(bigtable_instance, "x_", generated_stream_dir, "--address-book", book).exit_code == 0
    before = history_cells(PROJECT, bigtable_instance.instance_id, "x_")
    stored = _stored_hash(bigtable_instance, "x_", 5)

    # The real V6 files carry blocks 5 and 6: block 5 is the generated stream's already.
    v6_book = hedera_data / V6_BOOK
    other = _load(bigtable_instance, "x_", hedera_data / "v6", "--address-book", str(v6_book))

    assert other.exit_code == 1, other.output
    periods = find_local_periods(hedera_data / "v6")
    v6_block_5 = next(verify_stream(periods, parse_address_book(v6_book.read_bytes()))).report.block
    assert v6_block_5 is not None and v6_block_5.block_number == 5
    _refusal(other.output, 5, stored, v6_block_5.hash)
    after = history_cells(PROJECT, bigtable_instance.instance_id, "x_")
    assert after == before, describe_difference(before, after)

    again = _load(bigtable_instance, "x_", generated_stream_dir, "--address-book", book)
    assert again.exit_code == 0, again.output
    repeated = history_cells(PROJECT, bigtable_instance.instance_id, "x_")
    assert repeated == before, describe_difference(before, repeated)


def test_a_second_block_stream_into_the_same_tables_is_refused(bigtable_instance: Any, hedera_data: Path) -> None:
    genesis, books = hedera_data / "blocks" / "genesis", hedera_data / "addressbook"
    mainnet = ("--address-book", str(books / "main-resources-mainnet.bin"))
    assert _load(bigtable_instance, "b_", genesis / "mainnet", *mainnet).exit_code == 0
    before = history_cells(PROJECT, bigtable_instance.instance_id, "b_")
    stored = _stored_hash(bigtable_instance, "b_", 0)

    # Testnet's wrapped genesis block is another block 0.
    other = _load(
        bigtable_instance, "b_", genesis / "testnet", "--address-book", str(books / "main-resources-testnet.bin")
    )

    assert other.exit_code == 1, other.output
    (report,) = verify_blocks(find_block_runs(genesis / "testnet")[0])
    assert report.wrapped is not None
    _refusal(other.output, 0, stored, report.wrapped.record.hash)
    after = history_cells(PROJECT, bigtable_instance.instance_id, "b_")
    assert after == before, describe_difference(before, after)

    again = _load(bigtable_instance, "b_", genesis / "mainnet", *mainnet)
    assert again.exit_code == 0, again.output
    repeated = history_cells(PROJECT, bigtable_instance.instance_id, "b_")
    assert repeated == before, describe_difference(before, repeated)
