from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hedera_history.api.render import timestamp
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.unit.api.wsgi_app import query_app


def test_load_verifies_and_writes_a_directory(bigtable_instance: Any, hedera_data: Path) -> None:
    book = hedera_data / "addressbook" / "test-v6-sidecar-4n.bin"
    args = ["load", str(hedera_data / "v6"), "--address-book", str(book)]
    args += ["--instance", bigtable_instance.instance_id, "--table-prefix", "cli_"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "verified 2 block(s), wrote 2 completely" in result.output

    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix="cli_"))
    try:
        assert HistoryReader(gateway).get_blocks(0) == [5, 6]
    finally:
        gateway.close()

    again = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert again.exit_code == 0, again.output


def test_load_reports_periods_that_do_not_verify(bigtable_instance: Any, hedera_data: Path) -> None:
    wrong_book = hedera_data / "addressbook" / "test-resources-testnet.bin"
    args = [
        "load",
        str(hedera_data / "v6"),
        "--address-book",
        str(wrong_book),
        "--instance",
        bigtable_instance.instance_id,
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 1
    assert "not verified" in result.output


V5_FIRST = "2021-01-11T22_09_24.063739000Z"


def _load(folder: Path, book: Path, instance: Any, prefix: str) -> Any:
    args = ["load", str(folder), "--address-book", str(book), "--instance", instance.instance_id]
    return CliRunner().invoke(cli, [*args, "--table-prefix", prefix], catch_exceptions=False)


def _stored(instance: Any, prefix: str) -> list[int]:
    gateway = gateway_for_instance(instance, Settings(table_prefix=prefix))
    try:
        return HistoryReader(gateway).get_blocks(0)
    finally:
        gateway.close()


def test_load_refuses_a_real_period_replayed_under_a_later_name(
    bigtable_instance: Any, hedera_data: Path, tmp_path: Path
) -> None:
    # The real V5 period 0 (record and every node's signature) copied under a later name: before,
    # load wrote it as block 2, a full copy of block 0.
    shutil.copytree(hedera_data / "v5", tmp_path / "v5")
    later = "2021-01-11T22_09_44.063739000Z"
    for node in sorted((tmp_path / "v5" / "recordstreams").iterdir()):
        for suffix in (".rcd", ".rcd_sig"):
            shutil.copy(node / f"{V5_FIRST}{suffix}", node / f"{later}{suffix}")
    book = hedera_data / "addressbook" / "test-resources-testnet.bin"
    result = _load(tmp_path / "v5", book, bigtable_instance, "replay_")
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())  # the console wraps long lines
    assert "not verified" in text and later in text
    assert "first transaction reached consensus at 1610402964063739000" in text
    assert _stored(bigtable_instance, "replay_") == [0, 1]


def test_load_does_not_write_a_block_whose_link_is_broken(
    bigtable_instance: Any, hedera_data: Path, tmp_path: Path
) -> None:
    # The real V2 files, then the real V5 files: every node signed the first V5 file, but it names
    # a start running hash of its own, not the last V2 file's hash.
    for folder in ("v2", "v5"):
        shutil.copytree(hedera_data / folder / "recordstreams", tmp_path / "recordstreams", dirs_exist_ok=True)
    book = hedera_data / "addressbook" / "test-resources-testnet.bin"
    result = _load(tmp_path, book, bigtable_instance, "broken_")
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "chain problems" in text and "block 2 not written" in text
    # block 3 follows the refused block: its link is unverifiable, so it is written
    assert _stored(bigtable_instance, "broken_") == [0, 1, 3]


def test_after_load_every_route_answers_as_after_a_stack_upload(
    bigtable_instance: Any, generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    """The history's start (bootstrap book, genesis balances), the book the stream rotates to and
    the balances derived over its blocks: /network/nodes and /balances answer after a plain load."""
    args = ["load", str(generated_stream_dir), "--address-book", str(generated_stream_dir / "address-book.bin")]
    args += ["--instance", bigtable_instance.instance_id, "--table-prefix", "start_"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "address book: recorded in force from the first period" in text
    assert "genesis-balances.json loaded as the starting balances" in text and "6 block(s) applied" in text
    contract = ReferenceContract(load_reference_document())
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix="start_"))
    try:
        client = query_app(HistoryReader(gateway)).test_client()
        nodes = checked_get(client, contract, "/api/v1/network/nodes")["nodes"]
        truth = generated_stream.truth
        rotated = truth["address_books"][-1]  # node 0.0.3's key rotated by a 0.0.102 update
        assert [n["node_account_id"] for n in nodes] == [n["account"] for n in truth["nodes"]]
        changed_in = truth["blocks"][rotated["updated_in_block"]]
        assert nodes[0]["timestamp"]["from"] == timestamp(changed_in["consensus_end_ns"] + 1)
        book = parse_address_book((generated_stream_dir / rotated["file"]).read_bytes())
        assert [n["public_key"] for n in nodes] == ["0x" + n.public_key_der.hex() for n in book.nodes]
        for account, balance in sorted(truth["balances"]["final"].items())[:8]:
            body = checked_get(client, contract, f"/api/v1/balances?account.id={account}")
            assert body["balances"] == [{"account": account, "balance": balance, "tokens": []}]
    finally:
        gateway.close()


def test_a_loaded_book_serves_its_endpoints(bigtable_instance: Any, hedera_data: Path) -> None:
    book = hedera_data / "addressbook" / "test-v6-sidecar-4n.bin"
    result = _load(hedera_data / "v6", book, bigtable_instance, "nodes_")
    assert result.exit_code == 0, result.output
    contract = ReferenceContract(load_reference_document())
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix="nodes_"))
    try:
        nodes = checked_get(query_app(HistoryReader(gateway)).test_client(), contract, "/api/v1/network/nodes")["nodes"]
    finally:
        gateway.close()
    assert [n["node_account_id"] for n in nodes] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]
    first = nodes[0]
    # The book's deprecated ipAddress/portno and its serviceEndpoint, as the reference reads both.
    assert first["service_endpoints"] == [
        {"domain_name": "", "ip_address_v4": "127.0.0.1", "port": 0},
        {"domain_name": "", "ip_address_v4": "127.0.0.1", "port": 50204},
    ]
    assert first["node_cert_hash"] == "0x" and first["memo"] == "0.0.3" and first["description"] == ""
    assert first["timestamp"]["from"] == "1657701968.041986003"  # the first period's
