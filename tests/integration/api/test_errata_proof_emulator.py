"""A corrected transaction's proof over REST on the Bigtable emulator: a generated stream whose key
rotates, stored as the pipeline stores it, an errata replacing one of its transactions applied by
the errata ingest (council and node signatures, the nodes ratifying with the rotated key). The
``/stateproof`` answer is the files' builder's bytes, and ``hedera-history proof verify`` checks it
offline with the trusted book and council: the original is proven, the verdict names the errata.
An uncorrected transaction's proof is what it was before errata existed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.api.proofs import ProofSettings
from hedera_history.cli.proof_cmd import EXIT_CODES, proof
from hedera_history.config import Settings
from hedera_history.errors import ProofCouncilError
from hedera_history.proofs.codec import decode_bundle
from hedera_history.proofs.from_files import DirectoryProver, VerifiedBlocksProver
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.verify import transaction_id_text
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.gateway import ConditionalGateway
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables

from tests.fixtures.emulators import unique_name
from tests.unit.api.wsgi_app import query_app
from tests.unit.proofs.errata_world import ErrataWorld, build_errata_world, item_with_its_own_id

pytestmark = [pytest.mark.emulator, pytest.mark.xdist_group("errata-proof")]
PROTOBUF = {"Accept": "application/x-protobuf"}


@pytest.fixture(scope="module")
def world(bigtable_client: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ErrataWorld]:
    instance = bigtable_client.instance(unique_name("errataproof"))

    def open_store(settings: Settings) -> ConditionalGateway:
        settings = settings.with_(table_prefix="ep_")
        ensure_tables(instance, settings)
        return gateway_for_instance(instance, settings)

    built = build_errata_world(tmp_path_factory.mktemp("errata-proof"), open_store)
    yield built
    built.gateway.close()
    for table in instance.list_tables():
        with contextlib.suppress(Exception):
            table.delete()


def _stateproof(world: ErrataWorld, record_bytes: bytes) -> bytes:
    tid = hapi.TransactionRecord.FromString(record_bytes).transactionID
    app = query_app(HistoryReader(world.gateway), lambda: ProofSettings(world.book))
    url = f"/api/v1/transactions/{transaction_id_text(tid)}/stateproof"
    response = app.test_client().get(url, headers=PROTOBUF)
    assert response.status_code == 200, response.data[:500]
    data: bytes = response.data
    return data


def test_a_corrected_transaction_proof_over_rest_verifies_offline_and_names_the_errata(
    world: ErrataWorld, tmp_path: Path
) -> None:
    applied = world.update
    assert applied.correct is not None
    data = _stateproof(world, applied.correct.record_bytes)
    files = DirectoryProver(world.root, world.book)
    assert data == files.transaction_proof(TransactionQuery.at(applied.original.consensus_ns))
    bundle = decode_bundle(data)
    served = bundle.correction.served
    assert (served.transaction, served.record) == (applied.correct.transaction_bytes, applied.correct.record_bytes)

    proof_file = tmp_path / "corrected.proof"
    proof_file.write_bytes(data)
    book_file = tmp_path / "book.bin"
    book_file.write_bytes(world.book)
    runner = CliRunner()
    args = ["verify", str(proof_file), "--trust", str(book_file)]
    result = runner.invoke(proof, [*args, "--council", world.council])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("verified: transaction")
    assert f"original verified; corrected by errata {applied.errata.errata_id} (UPDATE)" in result.output
    assert "nodes with 3/4 stake" in result.output
    refused = runner.invoke(proof, args)  # no council trusted: the correction cannot be checked
    assert refused.exit_code == EXIT_CODES[ProofCouncilError], refused.output


def test_an_uncorrected_transaction_proof_over_rest_is_unchanged(world: ErrataWorld) -> None:
    plain = VerifiedBlocksProver(world.blocks, world.book)
    item = item_with_its_own_id(world.blocks, 3)  # no errata corrects block 3
    data = _stateproof(world, item.record_bytes)
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    tid = record.transactionID
    query = TransactionQuery.parse(transaction_id_text(tid), nonce=tid.nonce, scheduled=tid.scheduled)
    assert data == plain.transaction_proof(query)
    assert not decode_bundle(data).HasField("correction")
