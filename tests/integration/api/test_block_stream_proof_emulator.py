"""``/api/v1/transactions/{id}/stateproof`` for transactions of native blocks loaded into the
Bigtable emulator (``load`` of ``blocks/tss-schnorr``): the answer is a block-stream proof built
from the stored original blocks, the same bytes as the files' builder, and it verifies offline with
only the ledger id; no bootstrap address book is configured. A wrapped record block's transaction
proves through its nodes' RSA signatures over the whole record file, rebuilt from the stored block."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_transactions import block_transactions
from hedera_history.proofs.build import ChainPlan
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.from_store import StoreProver
from hedera_history.proofs.native import native_transaction_bundle, transaction_id_text
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify_any import verify_any_proof
from hedera_history.proofs.verify_native import NativeVerdict
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from tests.conformance.tss_blocks import LEDGER_ID
from tests.fixtures.emulators import unique_name
from tests.helpers.wrapped_records import WRAPPED_EXAMPLES, WrappedExample
from tests.unit.api.wsgi_app import query_app

pytestmark = [pytest.mark.emulator, pytest.mark.xdist_group("block-stream-proofs")]
PROTOBUF = {"Accept": "application/x-protobuf"}


@pytest.fixture(scope="module")
def served(bigtable_client: Any, hedera_data: Path) -> Iterator[Any]:
    instance = bigtable_client.instance(unique_name("bsproofs"))
    folder = hedera_data / "blocks" / "tss-schnorr"
    command = [
        "load",
        str(folder),
        "--instance",
        instance.instance_id,
        "--table-prefix",
        "tss_",
        "--ledger-id",
        LEDGER_ID,
    ]
    result = CliRunner().invoke(cli, command, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    gateway = gateway_for_instance(instance, Settings(table_prefix="tss_"))
    yield query_app(HistoryReader(gateway)).test_client()
    gateway.close()
    for table in instance.list_tables():
        with contextlib.suppress(Exception):
            table.delete()


@pytest.mark.parametrize("number", [0, 2])
def test_a_native_blocks_transaction_proof_is_served_and_verifies_with_the_ledger_id(
    served: Any, hedera_data: Path, number: int
) -> None:
    folder = hedera_data / "blocks" / "tss-schnorr"
    blocks = [parse_block_file((folder / f"{n}.blk.gz").read_bytes(), f"{n}.blk.gz") for n in (0, number)]
    found = block_transactions([i.message() for i in blocks[1].items])
    transaction = [t for t in found if t.parent is None and not t.in_batch][2]
    url = f"/api/v1/transactions/{transaction_id_text(transaction)}/stateproof"
    if transaction.body.transactionID.nonce:
        url += f"?nonce={transaction.body.transactionID.nonce}"
    response = served.get(url, headers=PROTOBUF)
    assert response.status_code == 200, response.data[:300]
    query = TransactionQuery.at(transaction.consensus_ns)
    expected = encode_bundle(native_transaction_bundle(blocks[1], query, block_zero=blocks[0]))
    assert response.data == expected
    verdict = verify_any_proof(response.data, Trust().with_ledger(LEDGER_ID))
    assert isinstance(verdict, NativeVerdict) and verdict.block.number == number
    as_json = served.get(url)
    assert as_json.status_code == 200
    assert encode_bundle(decode_bundle(as_json.data)) == expected


@pytest.mark.parametrize("example", WRAPPED_EXAMPLES, ids=lambda e: f"v{e.version}")
def test_a_wrapped_blocks_transaction_proves_through_the_rsa_signatures(
    bigtable_client: Any, hedera_data: Path, tmp_path: Path, example: WrappedExample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrapped block's nodes signed its file hash only: the proof carries the whole rebuilt file.
    (The chain plan is the bootstrap book alone: a ``load`` that starts mid-history records a book
    row the store's chain planner cannot place yet, for record files and wrapped blocks alike.)"""
    single = tmp_path / "block"
    single.mkdir()
    (single / Path(example.block).name).symlink_to(hedera_data / example.block)
    book = (hedera_data / example.book).read_bytes()
    instance = bigtable_client.instance(unique_name("bsrsa"))
    prefix = f"wrapped_v{example.version}_"
    command = ["load", str(single), "--instance", instance.instance_id, "--table-prefix", prefix]
    result = CliRunner().invoke(cli, [*command, "--address-book", str(hedera_data / example.book)])
    assert result.exit_code == 0, result.output
    gateway = gateway_for_instance(instance, Settings(table_prefix=prefix))
    try:
        reader = HistoryReader(gateway)
        listed = query_app(reader).test_client().get("/api/v1/transactions?limit=3").get_json()["transactions"]
        prover = StoreProver(reader, book, first_block=example.number)
        monkeypatch.setattr(prover, "chain_plan", lambda before: ChainPlan(book))
        for transaction in listed:
            data = prover.transaction_proof(TransactionQuery.parse(transaction["transaction_id"]))
            verdict = verify_any_proof(data, Trust.of_book(book))
            assert f"record file V{example.version}" in verdict.line()
            assert decode_bundle(data).block.record_file
    finally:
        gateway.close()
