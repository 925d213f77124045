"""Proofs over the query API on the real V5 and V6 record files in the Bigtable emulator (written
as the pipeline writes them: history rows, the address-book history): every transaction's
``/stateproof`` and every block's ``/proof`` verify against the real book, their JSON and protobuf
forms are one bundle, the same bytes as the store's builder; JSON-RPC gives the same bytes;
unknown subjects are 404s; ``hedera-history proof get --url`` fetches them from a served app."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.api.proofs import ProofSettings
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.proof_cmd import proof
from hedera_history.config import Settings
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.from_store import build_block_proof, build_transaction_proof
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import Verdict, transaction_id_text, verify_proof
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import unique_name
from tests.serving import serving_app
from tests.unit.api.wsgi_app import query_app

# One worker runs the module: its tests share the loaded store.
pytestmark = [pytest.mark.emulator, pytest.mark.xdist_group("proof-routes")]

SETS = {"v5": "test-resources-testnet.bin", "v6": "test-v6-sidecar-4n.bin"}
CONTRACT_CALL_ID = "0.0.2-1657701910-000000144"
"""The real V6 contract call with a sidecar record, and a child create (nonce 1)."""
PROTOBUF = {"Accept": "application/x-protobuf"}


@dataclass
class Served:
    book: bytes
    reader: HistoryReader
    blocks: list[VerifiedBlock]
    client: Any
    app: Any


def _load(instance: Any, name: str, directory: Path, book: bytes) -> Served:
    settings = Settings.from_env({}, table_prefix=f"{name}_")
    ensure_tables(instance, settings)
    gateway = gateway_for_instance(instance, settings)
    bootstrap = parse_address_book(book)
    blocks = [r.report.block for r in verify_stream(find_local_periods(directory), bootstrap) if r.report.block]
    assert blocks and all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
    history = AddressBookHistory(gateway, bootstrap)
    for block in blocks:
        history.record_block(block)
    history.advance(blocks[-1].block_number)
    reader = HistoryReader(gateway)
    settings_of_proofs = ProofSettings(book)
    app = query_app(reader, lambda: settings_of_proofs)
    return Served(book, reader, blocks, app.test_client(), app)


@pytest.fixture(scope="module")
def served(bigtable_client: Any, hedera_data: Path) -> Iterator[dict[str, Served]]:
    instance = bigtable_client.instance(unique_name("proofs"))
    loaded = {
        name: _load(instance, name, hedera_data / name, (hedera_data / "addressbook" / book).read_bytes())
        for name, book in SETS.items()
    }
    yield loaded
    for one in loaded.values():
        one.reader.gateway.close()
    for table in instance.list_tables():
        with contextlib.suppress(Exception):
            table.delete()


def _fetch(client: Any, url: str, **headers: str) -> tuple[bytes, Any]:
    """The canonical bytes and the JSON rendering of one proof URL, checked to be one bundle."""
    as_json = client.get(url, headers=headers)
    assert as_json.status_code == 200, (url, as_json.data[:500])
    assert as_json.mimetype == "application/json" and as_json.headers["Vary"] == "Accept"
    as_protobuf = client.get(url, headers=PROTOBUF)
    assert as_protobuf.status_code == 200, (url, as_protobuf.data[:500])
    assert as_protobuf.mimetype == "application/x-protobuf"
    separator = "&" if "?" in url else "?"
    assert client.get(f"{url}{separator}format=protobuf").data == as_protobuf.data
    assert encode_bundle(decode_bundle(as_json.data)) == as_protobuf.data
    return as_protobuf.data, as_json.get_json()


def _verified(served: Served, data: bytes) -> Verdict:
    by_book = verify_proof(data, Trust.of_book(served.book))
    assert verify_proof(data, Trust.of_hash(Trust.of_book(served.book).book_hash.hex())) == by_book
    return by_book


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_transaction_proof_served_verifies_against_the_real_book(served: dict[str, Served], name: str) -> None:
    one = served[name]
    for block in one.blocks:
        for item in block.record.items:
            tid = hapi.TransactionRecord.FromString(item.record_bytes).transactionID
            text = transaction_id_text(tid)
            url = f"/api/v1/transactions/{text}/stateproof?nonce={tid.nonce}&scheduled={str(tid.scheduled).lower()}"
            data, rendered = _fetch(one.client, url)
            assert data == build_transaction_proof(one.reader, text, tid.nonce, tid.scheduled, bootstrap_book=one.book)
            verdict = _verified(one, data)
            assert verdict.block.block_number in (None, block.block_number)  # V5 signs no number
            assert rendered["subject"]["transaction"]["transaction_id"] == text
            # a transaction's proof can still be corrected by an errata: cached briefly
            assert one.client.get(url).headers["Cache-Control"] == "public, max-age=1"


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_block_proof_served_verifies_and_is_cached_for_good(served: dict[str, Served], name: str) -> None:
    one = served[name]
    for block in one.blocks:
        url = f"/api/v1/blocks/{block.block_number}/proof"
        data, _ = _fetch(one.client, url)
        assert data == build_block_proof(one.reader, block.block_number, bootstrap_book=one.book)
        verdict = _verified(one, data)
        assert len(verdict.block.items) == len(block.record.items)
        for headers in ({}, PROTOBUF):
            response = one.client.get(url, headers=headers)
            assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            again = one.client.get(url, headers={**headers, "If-None-Match": response.headers["ETag"]})
            assert again.status_code == 304 and again.data == b""
        json_tag = one.client.get(url).headers["ETag"]
        assert one.client.get(url, headers=PROTOBUF).headers["ETag"] != json_tag  # two representations


def test_the_contract_call_its_child_and_its_sidecars(served: dict[str, Served]) -> None:
    one = served["v6"]
    base = f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof"
    call = _verified(one, _fetch(one.client, base)[0])
    child = _verified(one, _fetch(one.client, f"{base}?nonce=1")[0])
    assert child.block.block_number == call.block.block_number
    with_sidecars = _verified(one, _fetch(one.client, f"{base}?sidecars=true")[0])
    assert with_sidecars.sidecar_records and not call.sidecar_records
    at_form = one.client.get("/api/v1/transactions/0.0.2@1657701910.000000144/stateproof", headers=PROTOBUF)
    assert at_form.data == _fetch(one.client, base)[0]


def test_unknown_subjects_are_404_and_bad_input_400(served: dict[str, Served]) -> None:
    client = served["v6"].client
    cases = {
        "/api/v1/transactions/0.0.2-1657701910-000000145/stateproof": 404,
        f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof?nonce=7": 404,
        f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof?scheduled=true": 404,
        "/api/v1/blocks/999/proof": 404,
        "/api/v1/transactions/0.0.2-abc/stateproof": 400,
        f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof?nonce=-1": 400,
        f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof?scheduled=maybe": 400,
        f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof?format=xml": 400,
        f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof?limit=2": 400,
        "/api/v1/blocks/six/proof": 400,
    }
    for url, status in cases.items():
        response = client.get(url, headers=PROTOBUF)
        assert response.status_code == status, (url, response.data[:300])
        assert response.mimetype == "application/json"  # errors keep the mirror node's shape
        assert response.get_json()["_status"]["messages"][0]["message"]
        assert "Cache-Control" not in response.headers


def test_without_a_configured_book_proofs_are_not_served(served: dict[str, Served]) -> None:
    client = query_app(served["v6"].reader).test_client()
    response = client.get("/api/v1/blocks/6/proof")
    assert response.status_code == 501
    assert "address book" in response.get_json()["_status"]["messages"][0]["message"]
    assert client.get("/api/v1/blocks/6").status_code == 200


def _rpc(client: Any, method: str, *params: Any) -> Any:
    response = client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    assert response.status_code == 200, response.data
    return response.get_json()


def test_json_rpc_gives_the_same_bytes(served: dict[str, Served]) -> None:
    one = served["v6"]
    answer = _rpc(one.client, "getTransactionProof", CONTRACT_CALL_ID, {"nonce": 1})["result"]
    rest = one.client.get(f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof?nonce=1", headers=PROTOBUF).data
    assert base64.b64decode(answer["proof_base64"]) == rest
    block = _rpc(one.client, "getBlockProof", 6)["result"]
    assert base64.b64decode(block["proof_base64"]) == one.client.get("/api/v1/blocks/6/proof", headers=PROTOBUF).data
    assert _rpc(one.client, "getBlockProof", 999)["result"] is None
    assert _rpc(one.client, "getTransactionProof", "0.0.2-1657701910-000000145")["result"] is None
    assert _rpc(one.client, "getTransactionProof", "nope")["error"]["code"] == -32602
    assert _rpc(one.client, "getTransactionProof", CONTRACT_CALL_ID, {"nonce": True})["error"]["code"] == -32602


def test_proof_get_url_fetches_from_the_served_api(served: dict[str, Served], tmp_path: Path) -> None:
    one = served["v6"]
    book_file = tmp_path / "book.bin"
    book_file.write_bytes(one.book)
    runner = CliRunner()
    with serving_app(one.app) as url:
        out = tmp_path / "tx.proof"
        result = runner.invoke(
            proof, ["get", "--url", url, "--transaction", CONTRACT_CALL_ID, "--nonce", "1", "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        assert out.read_bytes() == build_transaction_proof(one.reader, CONTRACT_CALL_ID, 1, bootstrap_book=one.book)
        checked = runner.invoke(proof, ["verify", str(out), "--trust", str(book_file)])
        assert checked.exit_code == 0 and checked.output.startswith("verified: transaction"), checked.output

        block_out = tmp_path / "b6.json"
        result = runner.invoke(proof, ["get", "--url", url + "/", "--block", "6", "--json", "-o", str(block_out)])
        assert result.exit_code == 0, result.output
        assert runner.invoke(proof, ["verify", str(block_out), "--trust", str(book_file)]).exit_code == 0

        missing = runner.invoke(proof, ["get", "--url", url, "--block", "999"])
        assert missing.exit_code == 1 and "block 999" in missing.output
        by_time = runner.invoke(proof, ["get", "--url", url, "--at", "1657701971304284003"])
        assert by_time.exit_code == 1 and "--transaction" in by_time.output
