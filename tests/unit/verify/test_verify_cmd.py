from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.cli.main import main
from hedera_history.cli.verify_cmd import verify
from hedera_history.errors import ConfigError
from hedera_history.verify.period import FetchedFile

from .streamkit import v6_period, v6_record, v6_signature

NS = 1_700_000_000_000_000_000


@pytest.fixture
def stream(tmp_path: Path, node_keys, book) -> Path:
    start = bytes(48)
    for i in range(2):
        record = v6_record(NS + i * 2_000_000_000, start=start, block_number=i + 1)
        start = record.end
        signers = None if i == 0 else [3]  # the second period has one signature of four
        period = v6_period(node_keys, record, signers=signers)
        for node, fetched in [*period.signatures.items(), *period.records.items()]:
            path = tmp_path / "bucket" / "recordstreams" / f"record{node.account}" / fetched.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(fetched.data)
    (tmp_path / "book.bin").write_bytes(address_book_to_bytes(book))
    return tmp_path


def test_one_bad_period_exits_1_and_says_why(stream: Path):
    result = CliRunner().invoke(verify, [str(stream / "bucket"), "--address-book", str(stream / "book.bin")], env={})
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("OK ") and "block 1" in lines[0]
    assert any(line.startswith("FAIL") for line in lines)
    assert "node 0.0.4: no signature file" in result.output


def test_json_lines_for_good_and_bad_periods(stream: Path):
    result = CliRunner().invoke(
        verify, [str(stream / "bucket"), "--address-book", str(stream / "book.bin"), "--json"], env={}
    )
    first, second = (json.loads(line) for line in result.output.splitlines())
    assert first["ok"] and first["block_number"] == 1 and first["error"] is None
    assert not second["ok"] and second["error_kind"] == "no_consensus"
    assert second["consensus"] == {
        "file_hash": second["consensus"]["file_hash"],
        "stake": 1,
        "total_stake": 4,
        "ratio": "1/3",
        "reached": False,
        "fork": False,
        "rival_stake": 0,
    }
    assert second["version"] is None and second["nodes"]["0.0.3"] == "ok"


def test_a_fork_is_named_in_text_and_json(tmp_path: Path, node_keys, book):
    record = v6_record(NS, start=bytes(48), block_number=1)
    period = v6_period(node_keys, record)
    for node, fetched in period.signatures.items():  # 0.0.5 and 0.0.6 sign another file: 2 of 4 each side
        if node.account in ("0.0.5", "0.0.6"):
            key = node_keys[int(node.account.rsplit(".", 1)[1])]
            period.signatures[node] = FetchedFile(fetched.name, v6_signature(key, bytes(48), record.metadata_hash))
    for node, fetched in [*period.signatures.items(), *period.records.items()]:
        path = tmp_path / "bucket" / "recordstreams" / f"record{node.account}" / fetched.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(fetched.data)
    (tmp_path / "book.bin").write_bytes(address_book_to_bytes(book))
    args = [str(tmp_path / "bucket"), "--address-book", str(tmp_path / "book.bin")]

    text = CliRunner().invoke(verify, args, env={})
    assert text.exit_code == 1
    assert "error (consensus_fork): fork: two file hashes each reach the threshold: stake 2 and 2 of 4" in text.output
    line = json.loads(CliRunner().invoke(verify, [*args, "--json"], env={}).output)
    assert line["error_kind"] == "consensus_fork" and not line["ok"]
    assert (line["consensus"]["fork"], line["consensus"]["stake"], line["consensus"]["rival_stake"]) == (True, 2, 2)


def test_ratio_and_book_come_from_the_environment_or_flags(stream: Path):
    env = {"HEDERA_HISTORY_ADDRESS_BOOK": str(stream / "book.bin")}
    assert CliRunner().invoke(verify, [str(stream / "bucket"), "--consensus-ratio", "1/4"], env=env).exit_code == 0
    env["HEDERA_HISTORY_CONSENSUS_RATIO"] = "0.25"
    assert CliRunner().invoke(verify, [str(stream / "bucket")], env=env).exit_code == 0
    result = CliRunner().invoke(verify, [str(stream / "bucket"), "--consensus-ratio", "2"], env=env)
    assert isinstance(result.exception, ConfigError)


def test_usage_errors(stream: Path, tmp_path: Path):
    no_book = CliRunner().invoke(verify, [str(stream / "bucket")], env={"HEDERA_HISTORY_ADDRESS_BOOK": None})
    assert no_book.exit_code == 2 and "address book" in no_book.output
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = CliRunner().invoke(verify, [str(empty), "--address-book", str(stream / "book.bin")], env={})
    assert nothing.exit_code == 1 and "no stream files" in nothing.output
    remote = CliRunner().invoke(verify, [str(stream / "bucket"), "--address-book", "gs://b/book.bin"], env={})
    assert isinstance(remote.exception, ConfigError)


def test_the_entry_point_exits_with_the_commands_code(stream: Path, monkeypatch: pytest.MonkeyPatch):
    args = ["hedera-history", "verify", str(stream / "bucket"), "--address-book", str(stream / "book.bin")]
    monkeypatch.setattr("sys.argv", args)
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 1
