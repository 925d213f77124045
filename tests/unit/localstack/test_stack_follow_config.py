"""What a stack that follows a source is made of, without starting one: follow in place of ingest,
the followed source as every function's stream bucket, state and bridge counters that older files
without the follower's fields still read, and the command line's checks."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.cli import stack_cmd
from hedera_history.errors import AddressBookNotGivenError
from hedera_history.localstack.bridges import BridgeStats
from hedera_history.localstack.stack import LocalStack, StackConfig, follow_source_url
from hedera_history.localstack.stack_state import StackState

from tests.unit.localstack.test_stack import make_state


def names(config: StackConfig) -> list[str]:
    return [spec.name for spec in config.functions()]


def test_a_following_stack_runs_follow_instead_of_ingest() -> None:
    assert names(StackConfig()) == ["ingest", "sweep", "store", "query"]
    assert names(StackConfig(follow_source="gs://streams")) == ["sweep", "store", "follow", "query"]


def test_a_followed_directory_is_made_absolute_and_a_bucket_kept(tmp_path: Path) -> None:
    assert follow_source_url("gs://streams/prefix") == "gs://streams/prefix"
    assert follow_source_url("s3://streams") == "s3://streams"
    assert follow_source_url(str(tmp_path / "a" / ".." / "live")) == str((tmp_path / "live").resolve())
    assert Path(follow_source_url("relative/live")).is_absolute()


def test_every_function_reads_the_followed_source_as_its_stream_bucket(tmp_path: Path) -> None:
    config = StackConfig(state_dir=tmp_path, follow_source="gs://network", follow_start="now")
    stack = LocalStack(config)
    stack._state = make_state(tmp_path, follow_source="gs://network")
    env = stack.function_env()
    assert env["HEDERA_HISTORY_STREAM_BUCKET"] == "gs://network"
    assert env["HEDERA_HISTORY_FOLLOW_SOURCE"] == "gs://network"
    assert env["HEDERA_HISTORY_FOLLOW_START"] == "now"
    plain = LocalStack(StackConfig(state_dir=tmp_path))
    plain._state = make_state(tmp_path)
    assert "HEDERA_HISTORY_FOLLOW_SOURCE" not in plain.function_env()
    assert plain.function_env()["HEDERA_HISTORY_STREAM_BUCKET"] == "streams"  # its own bucket


def test_a_following_stack_reads_blocks_from_the_followed_source_after_the_cutover(tmp_path: Path) -> None:
    stack = LocalStack(StackConfig(state_dir=tmp_path, follow_source="gs://network"))
    stack._state = make_state(tmp_path, follow_source="gs://network")
    assert stack.function_env()["HEDERA_HISTORY_BLOCK_SOURCE"] == "gs://network"
    assert "HEDERA_HISTORY_LEDGER_PUBLICATION" not in stack.function_env()
    folder = str(tmp_path / "live")
    on_disk = LocalStack(StackConfig(state_dir=tmp_path, follow_source=folder))
    on_disk._state = make_state(tmp_path, follow_source=folder)
    env = on_disk.function_env()
    assert env["HEDERA_HISTORY_BLOCK_SOURCE"] == folder
    assert env["HEDERA_HISTORY_LEDGER_PUBLICATION"] == str(tmp_path / "live" / "ledger-id-publication.bin")


def test_block_nodes_and_the_ledger_publication_need_a_followed_source(tmp_path: Path) -> None:
    result = CliRunner().invoke(stack_cmd.stack, ["up", "--block-node", "127.0.0.1:40840"])
    assert result.exit_code != 0 and "need --follow SOURCE" in result.output


def test_state_keeps_the_follower_fields_and_reads_older_files_without_them(tmp_path: Path) -> None:
    state = make_state(tmp_path, follow_source="/data/live", follow_endpoint="http://127.0.0.1:9")
    again = StackState.from_json(state.to_json())
    assert (again.follow_source, again.follow_endpoint, again.following) == ("/data/live", "http://127.0.0.1:9", True)
    older = json.loads(make_state(tmp_path).to_json())
    del older["follow_source"], older["follow_endpoint"]
    assert not StackState.from_json(json.dumps(older)).following


def test_bridge_stats_of_an_older_bridge_read_without_the_follow_counters() -> None:
    older = {
        "events_sent": 1,
        "events_retried": 0,
        "events_dropped": 0,
        "objects_seen": 1,
        "sweep_calls": 2,
        "sweep_failures": 0,
        "store_acked": 3,
        "store_nacked": 0,
    }
    stats = BridgeStats.from_json(json.dumps(older))
    assert stats is not None and (stats.follow_calls, stats.follow_in_flight) == (0, 0)


def test_a_follower_failing_is_said_at_once_unless_its_calls_only_asked_to_be_retried() -> None:
    following = BridgeStats(0, 0, 0, 0, 0, 0, 0, 0, follow_calls=4)
    assert following.follower_failure() is None
    no_book = replace(following, follow_failing=1, follow_error="ConfigError: cannot read the address book")
    assert no_book.follower_failure() == "ConfigError: cannot read the address book"
    retried = replace(following, follow_failing=2, follow_error="HTTP 503", follow_error_retried=1)
    assert retried.follower_failure() is None
    assert replace(retried, follow_failing=3).follower_failure() == "HTTP 503"
    assert BridgeStats.from_json(no_book.to_json()) == no_book


def test_a_stack_that_follows_without_a_book_is_refused_before_anything_starts(tmp_path: Path) -> None:
    config = StackConfig(state_dir=tmp_path / "stack", follow_source=str(tmp_path / "network"))
    with pytest.raises(AddressBookNotGivenError, match="--address-book FILE"):
        LocalStack(config).start()
    assert not (tmp_path / "stack").exists()
    # The command line says so, names what to give, and exits 1 without a traceback.
    command = [sys.executable, "-m", "hedera_history.cli.main", "stack", "up", "--state-dir", str(tmp_path / "up")]
    ran = subprocess.run([*command, "--follow", str(tmp_path / "network")], capture_output=True, text=True, check=False)
    assert ran.returncode == 1, ran.stderr
    assert "--address-book FILE (HEDERA_HISTORY_ADDRESS_BOOK)" in ran.stderr and "--network NAME" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_follow_start_without_follow_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(stack_cmd.stack, ["up", "--state-dir", str(tmp_path), "--follow-start", "now"])
    assert result.exit_code == 2 and "--follow-start, --block-node and --ledger-publication need --follow SOURCE" in (
        result.output
    )


def test_the_status_line_names_the_next_block_after_the_cutover() -> None:
    base = {"status": "following", "source": "gs://network", "period": "2024-06-01T00_00_04Z"}
    timing = {"lag_seconds": 1.25, "last_update_seconds_ago": 0.5}
    assert "period 2024-06-01T00_00_04Z, 1.2 s behind" in stack_cmd.follower_line({**base, **timing, "mode": "records"})
    after = stack_cmd.follower_line({**base, **timing, "mode": "blocks", "next_block": 12})
    assert after == "gs://network: block 12 next, 1.2 s behind, position written 0.5 s ago"
