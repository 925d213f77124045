"""``verify DIR`` and ``inspect FILE`` on block files: alone, in the bucket layout, beside record files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.cli.inspect_cmd import inspect
from hedera_history.cli.verify_cmd import verify

from tests.unit.formats.block_files import gz, linked_blocks, zst
from tests.unit.verify.test_verify_blocks import _wrapped


def _json_lines(output: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in output.splitlines()]


def test_tss_blocks_in_the_bucket_layout_are_linked_but_never_verified(tmp_path: Path) -> None:
    folder = tmp_path / "previewnet" / "block" / "0000" / "0000" / "0000" / "0000"
    folder.mkdir(parents=True)
    for number, data in enumerate(linked_blocks(3)):
        (folder / f"{number:03d}.blk.zstd").write_bytes(zst(data))
    result = CliRunner().invoke(verify, [str(tmp_path), "--json"], env={"HEDERA_HISTORY_ADDRESS_BOOK": None})
    assert result.exit_code == 1
    shown = _json_lines(result.output)
    assert [block["number"] for block in shown] == [0, 1, 2]
    last = shown[2]
    assert last["version"] == "block" and last["record_version"] is None and last["hapi_version"] == "0.78.0"
    assert last["link"] == {
        "previous": "previewnet/block/0000/0000/0000/0000/001.blk.zstd",
        "previous_root": "ok",
        "all_block_hashes_root": "ok",
        "reason": None,
    }
    assert last["signature"] == {
        "scheme": "tss",
        "verified": False,
        "proof": "signed_block_proof",
        "weight": 0,
        "total_weight": 0,
        "placeholder": False,
    }
    assert not last["ok"] and last["error_kind"] == "tss_unverifiable_proof" and "block 0" in str(last["reason"])
    assert last["items"] == {
        "block_header": 1,
        "round_header": 1,
        "event_header": 6,
        "signed_transaction": 6,
        "transaction_result": 6,
        "transaction_output": 6,
        "state_changes": 6,
        "block_footer": 1,
        "block_proof": 1,
    }
    assert isinstance(last["root_hash"], str) and len(last["root_hash"]) == 96
    assert last["previous_root_hash"] == shown[1]["root_hash"] and last["proof"] == "signed_block_proof"
    assert last["timestamp"] == (1_786_000_000 + 4) * 10**9 + 5


def test_wrapped_record_blocks_verify_with_the_book(
    tmp_path: Path, node_keys: dict[int, rsa.RSAPrivateKey], book: AddressBook
) -> None:
    (tmp_path / "blocks").mkdir()
    (tmp_path / "blocks" / "0.blk.gz").write_bytes(gz(_wrapped(node_keys, (3, 4, 6))))
    (tmp_path / "book.bin").write_bytes(address_book_to_bytes(book))
    args = [str(tmp_path / "blocks"), "--address-book", str(tmp_path / "book.bin")]
    result = CliRunner().invoke(verify, [*args, "--json"], env={})
    assert result.exit_code == 0, result.output
    (shown,) = _json_lines(result.output)
    assert shown["ok"] and shown["reason"] is None and shown["record_version"] == 6
    assert shown["signature"]["node_ids"] == [0, 1, 3] and shown["signature"]["stake"] == 3  # type: ignore[index]
    assert shown["record_file"]["item_count"] == 3  # type: ignore[index]
    text = CliRunner().invoke(verify, args, env={})
    assert text.exit_code == 0 and text.output.startswith("OK   0.blk.gz  block 0") and "wraps V6" in text.output


def test_record_files_and_blocks_side_by_side(generated_stream_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    (folder / "blocks").mkdir(parents=True)
    shutil.copytree(generated_stream_dir / "recordstreams", folder / "recordstreams")
    (folder / "blocks" / "0.blk").write_bytes(linked_blocks(1)[0])
    book = str(generated_stream_dir / "address-book.bin")
    result = CliRunner().invoke(verify, [str(folder), "--address-book", book, "--json"], env={})
    shown = _json_lines(result.output)
    assert [line.get("kind") for line in shown] == [None] * 6 + ["block"]
    assert all(line["ok"] for line in shown[:6]) and not shown[6]["ok"]
    assert result.exit_code == 1


def test_nothing_to_verify(tmp_path: Path) -> None:
    result = CliRunner().invoke(verify, [str(tmp_path)], env={})
    assert result.exit_code == 1 and "no block files" in result.output


def test_inspect_a_block_file(tmp_path: Path) -> None:
    path = tmp_path / "0000000000000000001.blk.zstd"
    path.write_bytes(zst(linked_blocks(2)[1]))
    result = CliRunner().invoke(inspect, [str(path)], env={})
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["kind"] == "block" and shown["number"] == 1 and shown["layout"] == "L16"
    assert shown["items"][3]["item"]["decodedBody"] == {"memo": "body 1/0"}
    # The hand-built event header is not a valid EventHeader: shown raw, with why, not refused.
    assert shown["items"][2]["kind"] == "event_header" and "does not parse" in shown["items"][2]["decodeError"]
    assert shown["proofs"][0]["kind"] == "signed_block_proof"
    bomb = CliRunner().invoke(inspect, [str(path), "--max-decompressed-bytes", "100"], env={})
    assert bomb.exit_code == 1 and "exceeds the limit" in bomb.output
