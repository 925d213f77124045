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
