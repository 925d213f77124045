"""A HIP-639 errata naming a native block's transaction, on the Bigtable emulator: a generated
block stream loaded through ``load``, an errata correcting a transaction of native block 1 applied
through ``errata apply`` as on record history, and the answers: the correction with its marker,
the original kept (``/api/v1/errata/{timestamp}``, ``getTransactionOriginal``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.api.render import timestamp
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.formats.block import block_content, parse_block_file
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.errata import build_errata, errata_objects
from hedera_history.gen.keys import ed25519_public_bytes
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.original_blocks import original_block
from hedera_history.store.reader import HistoryReader

from tests.fixtures.emulators import PROJECT
from tests.unit.api.wsgi_app import query_app

pytestmark = [pytest.mark.emulator]

CORRECTED_BLOCK = 1
ERRATA_BLOCK = 2
FEE_CORRECTION = 100
PREFIX = "block_errata_"


def _block_path(out: Path, number: int) -> Path:
    return next((out / "demo" / "block").rglob(f"*{number:03d}.blk*"))


def _records(out: Path, number: int) -> tuple[RecordItem, ...]:
    path = _block_path(out, number)
    return native_block_files(parse_block_file(path.read_bytes(), path.name))[0].items


def _corrected(item: RecordItem) -> RecordItem:
    """The record with its fee raised (the network charged more than the stream said)."""
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    record.transactionFee += FEE_CORRECTION
    return RecordItem(item.transaction_bytes, record.SerializeToString(), item.consensus_ns)


def _get(client: Any, url: str) -> Any:
    response = client.get(url)
    assert response.status_code == 200, (url, response.data[:300])
    return response.get_json()


def test_an_errata_corrects_a_native_blocks_transaction(bigtable_instance: Any, tmp_path: Path) -> None:
    stream = generate_stream(GeneratorConfig(nodes=4, periods=4, transactions=12, seed=7, cutover_after=0))
    out = tmp_path / "stream"
    write_stream(stream, out)
    runner = CliRunner()
    target = ["--instance", bigtable_instance.instance_id, "--project", PROJECT, "--table-prefix", PREFIX]
    book = str(out / "address-book.bin")
    loaded = runner.invoke(cli, ["load", str(out), "--address-book", book, *target], catch_exceptions=False)
    assert loaded.exit_code == 0, loaded.output

    original = _records(out, CORRECTED_BLOCK)[1]
    later = _records(out, ERRATA_BLOCK)
    errata_ns = (later[0].consensus_ns + later[1].consensus_ns) // 2
    data, signatures = build_errata(
        stream, consensus_ns=errata_ns, time_of_error=original.consensus_ns, correct_item=_corrected(original)
    )
    for name, content in errata_objects(stream, errata_ns, data, signatures).items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(content)
    errata_file = next(out.rglob("*.errata"))
    council = ",".join(ed25519_public_bytes(key).hex() for key in stream.keys.council)
    apply = ["errata", "apply", str(errata_file), "--address-book", book, "--council-keys", council, *target]
    applied = runner.invoke(cli, apply, catch_exceptions=False, terminal_width=250)
    assert applied.exit_code == 0, applied.output
    assert "applied:" in applied.output

    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix=PREFIX))
    try:
        client = query_app(HistoryReader(gateway)).test_client()
        record = hapi.TransactionRecord.FromString(original.record_bytes)
        at = timestamp(original.consensus_ns)
        (answer,) = _get(client, f"/api/v1/transactions?timestamp={at}")["transactions"]
        assert answer["consensus_timestamp"] == at
        assert answer["errata"] == "UPDATE"
        assert answer["charged_tx_fee"] == record.transactionFee + FEE_CORRECTION
        kept = _get(client, f"/api/v1/errata/{at}")
        assert (kept["errata"], kept["block_number"]) == ("UPDATE", CORRECTED_BLOCK)
        assert kept["original"]["charged_tx_fee"] == record.transactionFee
        assert kept["original"]["transaction_id"] == answer["transaction_id"]
        assert [e["in_force"] for e in kept["errata_applied"]] == [True]
        # The block as the network signed it is kept: its original bytes come back unchanged.
        path = _block_path(out, CORRECTED_BLOCK)
        signed = block_content(path.read_bytes(), path.name, limit=1 << 30)
        assert original_block(HistoryReader(gateway), CORRECTED_BLOCK) == signed
        again = runner.invoke(cli, [*apply, "--dry-run"], catch_exceptions=False, terminal_width=250)
        assert "already applied" in again.output
    finally:
        gateway.close()
