"""Block streams through ``load`` and the API, on the Bigtable emulator: every transaction of the
real blocks (``blocks/tss-schnorr``, ``mirror-node-blockstreams``, ``wrapped-solo-4n``,
``wrapped-mainnet``, ``genesis``) answered by ``/transactions/{id}``, every block by ``/blocks/{n}``
and its hash with the values the reference's tests assert (``blocks/README.md``), every answer
valid against the reference OpenAPI; and a wrapped record block answers every route exactly as
the record file it wraps, loaded from its ``.rcd`` folder into another store."""

from __future__ import annotations

import base64
import contextlib
import gzip
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.api.render import timestamp, transaction_id_string
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_hash import EMPTY_TREE_HASH
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.original_blocks import original_block
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.blocks import BlockCheckOptions, verify_blocks

from tests.conformance.tss_blocks import LEDGER_ID, ROOTS
from tests.fixtures.emulators import unique_name
from tests.helpers.wrapped_records import WRAPPED_EXAMPLES, bucket_layout
from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.unit.api.wsgi_app import query_app

pytestmark = [pytest.mark.emulator, pytest.mark.xdist_group("blocks-loaded")]

BLOCKS = "blocks"
TSS_COUNTS = (759, 59, 171, 24, 22, 25)
SOLO_COUNTS = (760, 146, 76, 20, 19)
MIRROR = {
    # number: (consensus start = end, count, hash, previous hash), MN BlockStreamReaderTest
    7: (
        1770842061390565879,
        1,
        "8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a",
        "e11e44567f5ca4ae23b75467b75d83c8880d0888f5c4154f08b8f221bf269b2e4f3f1686e8dcb9694beaaf287313b0fb",
    ),
    8: (
        1770842063775529380,
        1,
        "78ef36dc7c7cb57cfb212966b768a0fbc9b0f5045574c6b3bfa0cccdcef9401b7edda1cf05ada60dedd7e0b435e0d81d",
        "8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a",
    ),
    16: (
        1770842078844243554,
        0,
        "c61a2439f0754008932fe10155ce2c61b32457d6ec30e632a71eafeeef44b1df64b1cfd966c6325c0c5766431f5441f9",
        "449c52f8efe0e284aac3a0961efb2403a7337a0fc519c1b5231a07ce6d3eae9e9b9d8809782202a5fd40048ddd533098",
    ),
}


@dataclass
class Store:
    client: Any
    contract: ReferenceContract
    reader: HistoryReader

    def get(self, url: str, status: int = 200) -> Any:
        response = self.client.get(url)
        assert response.status_code == status, (url, response.status_code, response.data[:300])
        body = response.get_json()
        self.contract.validate(urlsplit(url).path, status, body)
        return body

    def rpc(self, method: str, *params: Any) -> Any:
        response = self.client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
        assert response.status_code == 200, response.data[:300]
        answer = response.get_json()
        assert "error" not in answer, answer
        return answer["result"]

    def follow(self, url: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        link: str | None = url
        while link is not None:
            body = self.get(link)
            items.extend(body[key])
            link = body["links"]["next"]
        return items


@dataclass
class Loaded:
    instance: Any
    contract: ReferenceContract
    gateways: list[Any]

    def load(self, prefix: str, folder: Path, *args: str) -> Store:
        command = ["load", str(folder), "--instance", self.instance.instance_id, "--table-prefix", prefix, *args]
        result = CliRunner().invoke(cli, command, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        gateway = gateway_for_instance(self.instance, Settings(table_prefix=prefix))
        self.gateways.append(gateway)
        reader = HistoryReader(gateway)
        return Store(query_app(reader).test_client(), self.contract, reader)


@pytest.fixture(scope="module")
def loaded(bigtable_client: Any) -> Iterator[Loaded]:
    instance = bigtable_client.instance(unique_name("blocks"))
    done = Loaded(instance, ReferenceContract(load_reference_document()), [])
    yield done
    for gateway in done.gateways:
        gateway.close()
    for table in instance.list_tables():
        with contextlib.suppress(Exception):
            table.delete()


def _records(folder: Path) -> list[RecordItem]:
    """Every record the native blocks under ``folder`` hold, as the row builder reads them."""
    return [item for path in sorted(folder.rglob("*.blk*")) for item in _block_records(path)]


def _block_records(path: Path) -> tuple[RecordItem, ...]:
    return native_block_files(parse_block_file(path.read_bytes(), path.name))[0].items


def _every_transaction_answers(store: Store, records: list[RecordItem]) -> None:
    """Each transaction id answers with the consensus time of every record that carries it (a
    network's genesis transactions share one id)."""
    by_id: dict[str, set[str]] = {}
    for item in records:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
        payer = record.transactionID.accountID
        valid_start = record.transactionID.transactionValidStart
        transaction_id = transaction_id_string(
            f"{payer.shardNum}.{payer.realmNum}.{payer.accountNum}",
            valid_start.seconds * 10**9 + valid_start.nanos,
        )
        by_id.setdefault(transaction_id, set()).add(timestamp(item.consensus_ns))
    for transaction_id, times in by_id.items():
        answered = store.get(f"/api/v1/transactions/{transaction_id}")["transactions"]
        assert times <= {t["consensus_timestamp"] for t in answered}, transaction_id


def _block(store: Store, number: int) -> dict[str, Any]:
    block: dict[str, Any] = store.get(f"/api/v1/blocks/{number}")
    assert store.get(f"/api/v1/blocks/{block['hash']}") == block
    return block


def test_tss_signed_blocks(loaded: Loaded, hedera_data: Path) -> None:
    folder = hedera_data / BLOCKS / "tss-schnorr"
    store = loaded.load("tss_", folder, "--ledger-id", LEDGER_ID)
    for number, count in enumerate(TSS_COUNTS):
        block = _block(store, number)
        previous = EMPTY_TREE_HASH.hex() if number == 0 else ROOTS[number - 1]
        assert (block["hash"], block["previous_hash"]) == ("0x" + ROOTS[number], "0x" + previous)
        assert (block["count"], block["record_file_version"], block["hapi_version"]) == (count, 7, "0.78.0")
        assert block["name"] == f"{number:019d}.blk"
        assert "unsigned" not in block, "a TSS-signed block is not marked unsigned"
        by_rpc = store.rpc("getBlock", number)
        assert {k: v for k, v in by_rpc.items() if k != "transactions"} == block
        assert len(by_rpc["transactions"]) == count
        path = folder / f"{number}.blk.gz"
        records = _block_records(path)
        assert original_block(store.reader, number) == gzip.decompress(path.read_bytes())
        assert block["timestamp"] == {
            "from": timestamp(records[0].consensus_ns),
            "to": timestamp(records[-1].consensus_ns),
        }
    assert [b["number"] for b in store.follow("/api/v1/blocks?limit=4", "blocks")] == [5, 4, 3, 2, 1, 0]
    _every_transaction_answers(store, _records(folder))


def test_native_blocks_of_an_unsigned_network_need_asking_for(loaded: Loaded, hedera_data: Path) -> None:
    folder = hedera_data / BLOCKS / "mirror-node-blockstreams"
    args = ["load", str(folder), "--instance", loaded.instance.instance_id, "--table-prefix", "refused_"]
    refused = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert refused.exit_code == 1
    assert "unverified_proof" in " ".join(refused.output.split())
    store = loaded.load("mirror_", folder, "--unsigned-blocks")
    for number, (consensus, count, block_hash, previous) in MIRROR.items():
        block = _block(store, number)
        assert block["timestamp"] == {"from": timestamp(consensus), "to": timestamp(consensus)}
        assert (block["count"], block["hash"], block["previous_hash"]) == (count, "0x" + block_hash, "0x" + previous)
        assert block["hapi_version"] == "0.73.0"
    _every_transaction_answers(store, _records(folder))


def test_unsigned_blocks_say_so_and_are_never_proven(loaded: Loaded, hedera_data: Path) -> None:
    """Blocks stored unsigned (placeholder proofs, ``--unsigned-blocks``): every block answer and
    every answer carrying one of their transactions has ``unsigned: true`` (valid against the
    reference OpenAPI), and no proof of them is given (501, saying why)."""
    folder = hedera_data / BLOCKS / "mirror-node-blockstreams"
    store = loaded.load("unsigned_", folder, "--unsigned-blocks")
    listed = store.follow("/api/v1/blocks?limit=2", "blocks")
    assert [(b["number"], b["unsigned"]) for b in listed] == [(16, True), (8, True), (7, True)]
    for number in MIRROR:
        assert _block(store, number)["unsigned"] is True
    records = _records(folder)
    assert records, "the unsigned blocks hold transactions"
    for item in records:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
        payer = record.transactionID.accountID
        valid_start = record.transactionID.transactionValidStart
        transaction_id = transaction_id_string(
            f"{payer.shardNum}.{payer.realmNum}.{payer.accountNum}", valid_start.seconds * 10**9 + valid_start.nanos
        )
        answered = store.get(f"/api/v1/transactions/{transaction_id}")["transactions"]
        assert all(t["unsigned"] is True for t in answered), transaction_id
        assert store.rpc("getTransaction", transaction_id)["unsigned"] is True
        refused = store.client.get(f"/api/v1/transactions/{transaction_id}/stateproof")
        assert refused.status_code == 501, refused.data[:300]
        assert "stored unsigned" in refused.get_json()["_status"]["messages"][0]["message"]
    listing = store.get("/api/v1/transactions?limit=100")["transactions"]
    assert listing and all(t["unsigned"] is True for t in listing)
    by_rpc = store.rpc("getBlock", 7)
    assert by_rpc["unsigned"] is True and all(t["unsigned"] is True for t in by_rpc["transactions"])


def test_wrapped_solo_blocks(loaded: Loaded, hedera_data: Path) -> None:
    folder = hedera_data / BLOCKS / "wrapped-solo-4n"
    store = loaded.load("solo_", folder, "--address-book", str(folder / "address-book.json"))
    (run,) = find_block_runs(folder)
    reports = list(verify_blocks(run, None, BlockCheckOptions()))
    for number, count in enumerate(SOLO_COUNTS):
        block = _block(store, number)
        wrapped = reports[number].wrapped
        assert wrapped is not None
        assert block["count"] == count == len(wrapped.record.items)
        assert block["hash"] == "0x" + wrapped.record.hash.hex()
        assert block["record_file_version"] == 6
        _every_transaction_answers(store, list(wrapped.record.items))


@pytest.mark.parametrize(
    ("network", "book", "count"),
    [("mainnet", "main-resources-mainnet.bin", 1), ("testnet", "main-resources-testnet.bin", 707)],
)
def test_wrapped_genesis_blocks(loaded: Loaded, hedera_data: Path, network: str, book: str, count: int) -> None:
    folder = hedera_data / BLOCKS / "genesis" / network
    store = loaded.load(f"genesis_{network}_", folder, "--address-book", str(hedera_data / "addressbook" / book))
    block = _block(store, 0)
    assert block["count"] == count
    (run,) = find_block_runs(folder)
    (report,) = verify_blocks(run, None, BlockCheckOptions())
    assert report.wrapped is not None
    _every_transaction_answers(store, list(report.wrapped.record.items))


@pytest.mark.parametrize("example", WRAPPED_EXAMPLES, ids=lambda e: f"v{e.version}")
def test_a_wrapped_block_answers_as_its_record_file(
    loaded: Loaded, hedera_data: Path, tmp_path: Path, example: Any
) -> None:
    book = str(hedera_data / example.book)
    single = tmp_path / "block"
    single.mkdir()
    (single / Path(example.block).name).symlink_to(hedera_data / example.block)
    from_block = loaded.load(f"wrapped_v{example.version}_", single, "--address-book", book)
    originals = bucket_layout(hedera_data / example.originals, tmp_path / "originals")
    start = ["--start-block", str(example.number)]
    from_file = loaded.load(f"original_v{example.version}_", originals, "--address-book", book, *start)

    urls = ["/api/v1/blocks", f"/api/v1/blocks/{example.number}"]
    block = from_file.get(f"/api/v1/blocks/{example.number}")
    urls.append(f"/api/v1/blocks/{block['hash']}")
    listed = from_file.follow("/api/v1/transactions?limit=25", "transactions")
    assert len(listed) == block["count"]
    urls += ["/api/v1/transactions?limit=25", "/api/v1/transactions?limit=10&order=asc"]
    for transaction in listed:
        urls.append(f"/api/v1/transactions/{transaction['transaction_id']}")
        urls.append(f"/api/v1/transactions/{base64.b64decode(transaction['transaction_hash']).hex()}")
    payers = sorted({t["transaction_id"].split("-")[0] for t in listed})
    urls += [f"/api/v1/accounts/{payer}?limit=5" for payer in payers[:5]]
    urls += [f"/api/v1/transactions?account.id={payer}&limit=5" for payer in payers[:5]]
    for url in urls:
        assert from_block.get(url) == from_file.get(url), url
    assert from_block.rpc("getBlock", example.number) == from_file.rpc("getBlock", example.number)
    # The block form is kept beside the record file's rows: the original block comes back.
    original = gzip.decompress((hedera_data / example.block).read_bytes())
    assert original_block(from_block.reader, example.number) == original
    assert original_block(from_file.reader, example.number) is None
    for transaction in listed:
        key = transaction["transaction_id"]
        assert from_block.rpc("getTransaction", key) == from_file.rpc("getTransaction", key)


def test_record_files_and_blocks_in_one_folder_share_one_numbering(
    loaded: Loaded, hedera_data: Path, tmp_path: Path
) -> None:
    # Record periods (the real V5 files, blocks 0 and 1) and block files in the bucket layout
    # (the mirror node's blocks 7, 8 and 16) under one folder, as a stream crossing the cutover.
    shutil.copytree(hedera_data / "v5", tmp_path / "record", copy_function=os.symlink)
    shutil.copytree(hedera_data / BLOCKS / "mirror-node-blockstreams", tmp_path / "block", copy_function=os.symlink)
    book = str(hedera_data / "addressbook" / "test-resources-testnet.bin")
    store = loaded.load("mixed_", tmp_path, "--address-book", book, "--unsigned-blocks")
    listed = store.follow("/api/v1/blocks?limit=2", "blocks")
    assert [b["number"] for b in listed] == [16, 8, 7, 1, 0]
    assert [b["record_file_version"] for b in listed] == [7, 7, 7, 5, 5]
    assert listed[0]["hash"] == "0x" + MIRROR[16][2]
    assert store.rpc("getBlocks", 0, 20) == [0, 1, 7, 8, 16]


def test_native_blocks_after_a_stored_block_zero_verify_against_its_ledger(
    loaded: Loaded, hedera_data: Path, tmp_path: Path
) -> None:
    folder = hedera_data / BLOCKS / "tss-schnorr"
    zero, later = tmp_path / "zero", tmp_path / "later"
    zero.mkdir()
    later.mkdir()
    (zero / "0.blk.gz").symlink_to(folder / "0.blk.gz")
    for number in range(1, 6):
        (later / f"{number}.blk.gz").symlink_to(folder / f"{number}.blk.gz")
    args = ["load", str(later), "--instance", loaded.instance.instance_id, "--ledger-id", LEDGER_ID]
    alone = CliRunner().invoke(cli, [*args, "--table-prefix", "later_alone_"], catch_exceptions=False)
    assert alone.exit_code == 1
    assert "tss_unverifiable_proof" in " ".join(alone.output.split())
    loaded.load("later_", zero, "--ledger-id", LEDGER_ID)
    store = loaded.load("later_", later, "--ledger-id", LEDGER_ID)
    assert [b["number"] for b in store.follow("/api/v1/blocks?limit=10", "blocks")] == [5, 4, 3, 2, 1, 0]
    other = CliRunner().invoke(cli, [*args[:4], "--table-prefix", "later_", "--ledger-id", "00" * 32])
    assert other.exit_code == 1
    assert "tss_ledger" in " ".join(other.output.split())
