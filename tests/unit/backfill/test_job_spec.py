"""One list of a job's flags: ``backfill run`` (click) and the Dataproc job (argparse) read the same
flags, and what ``submit`` forwards is read back as it was given."""

from __future__ import annotations

import dataclasses

import click
import pytest
from hedera_history.backfill.job_spec import JOB_FLAGS, JobArguments, forwarded_args, parse_job_argv
from hedera_history.cli.backfill_cmd import backfill
from hedera_history.errors import JobArgumentError
from hedera_history.name_values import name_values

COMMAND_LINE_ONLY = {"local", "report_path", "as_json", "fail_after_blocks", "source", "env"}
"""``backfill run`` options the Dataproc job does not take (progress, output, test hooks) or takes apart."""


def _run_options() -> dict[str, click.Parameter]:
    command = backfill.commands["run"]
    return {param.name: param for param in command.params if param.name is not None}


def test_run_takes_exactly_the_jobs_flags() -> None:
    options = _run_options()
    assert set(options) - COMMAND_LINE_ONLY == {flag.name for flag in JOB_FLAGS}
    for flag in JOB_FLAGS:
        option = options[flag.name]
        assert isinstance(option, click.Option)
        assert flag.flag in option.opts
        assert option.is_flag == (flag.kind is bool)
        if flag.negated:
            assert "--no-" + flag.flag.removeprefix("--") in option.secondary_opts


def test_forwarded_arguments_read_back_as_given() -> None:
    given = JobArguments(
        start="2024-06-01",
        end="2024-06-02",
        source="s3://hedera-streams/",
        address_book="gs://b/book.bin",
        first_block=3,
        layout="node-id",
        network="testnet",
        shard=1,
        partitions=4,
        consensus_ratio="1/3",
        reprocess=True,
        sidecars=False,
        s3_requester_pays=True,
        create_tables=False,
    )
    line = forwarded_args(given)
    assert line[0] == "s3://hedera-streams/"
    assert {"--no-sidecars", "--s3-requester-pays", "--no-create-tables", "--reprocess"} <= set(line)
    assert parse_job_argv([*line, "--env", "A=b"]) == dataclasses.replace(given, env=("A=b",))


def test_the_defaults_read_back_as_defaults() -> None:
    minimal = JobArguments(start="1", end="2")
    assert forwarded_args(minimal) == ["--start", "1", "--end", "2", "--shard", "0", "--create-tables"]
    assert parse_job_argv(forwarded_args(minimal)) == minimal


def test_a_pair_without_a_value_names_its_option() -> None:
    assert name_values(["A=1", "B="], "--env") == {"A": "1", "B": ""}
    with pytest.raises(JobArgumentError) as raised:
        name_values(["A"], "--property")
    assert raised.value.option == "--property"


def test_a_block_job_from_the_network_presets_block_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    from hedera_history.backfill.job_spec import build_block_job, is_block_job  # noqa: PLC0415

    for name in ("HEDERA_HISTORY_NETWORK", "HEDERA_HISTORY_ADDRESS_BOOK", "HEDERA_HISTORY_LEDGER_PUBLICATION"):
        monkeypatch.delenv(name, raising=False)
    args = parse_job_argv(["--blocks", "--network", "mainnet", "--first-block", "90000001", "--partitions", "4"])
    assert is_block_job(args) and not is_block_job(JobArguments(start="2024-06-01", end="2024-06-02"))
    job = build_block_job(args)
    assert (job.source_url, job.folder) == ("gs://hedera-mainnet-recent-block-streams", "mainnet/block/")
    assert (job.first_block, job.last_block, job.partitions, job.block_nodes) == (90000001, None, 4, "")
    assert job.book is not None  # the preset's bootstrap book, for wrapped record blocks


def test_a_block_node_range_needs_its_end_and_no_source(monkeypatch: pytest.MonkeyPatch) -> None:
    from hedera_history.backfill.job_spec import build_block_job, build_job  # noqa: PLC0415

    monkeypatch.delenv("HEDERA_HISTORY_NETWORK", raising=False)
    nodes = parse_job_argv(["--block-node", "localhost:40840", "--first-block", "5", "--last-block", "9"])
    job = build_block_job(nodes)
    assert (job.source_url, job.block_nodes, job.first_block, job.last_block) == ("", "localhost:40840", 5, 9)
    assert job.settings.block_nodes == "localhost:40840"
    with pytest.raises(JobArgumentError, match="--last-block"):
        build_block_job(parse_job_argv(["--block-node", "localhost:40840", "--first-block", "5"]))
    with pytest.raises(JobArgumentError, match="--start and --end"):
        build_job(parse_job_argv(["/streams"]))
