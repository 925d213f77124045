"""A backfill job's arguments: the one list of its flags, their checks, and the job they describe.

``hedera-history backfill run`` (click) and the Dataproc job (``backfill/dataproc_job.py`` beside the image recipe,
argparse) take the same flags, and ``backfill submit`` passes them on from one to the other:
:data:`JOB_FLAGS` names them once, :func:`forwarded_args` writes them back as a command line,
:func:`parse_job_argv` reads them without click, and :func:`build_job` turns them into the
:class:`~hedera_history.backfill.partition_messages.BackfillJob` a run executes. A wrong value is a
:class:`~hedera_history.errors.JobArgumentError` naming its flag; the command line shows it as a usage
error.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from hedera_history.backfill.block_plan import BlockJob
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.errors import ConfigError, JobArgumentError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.name_values import name_values
from hedera_history.networks import network_named
from hedera_history.sources.address_book_file import bootstrap_book_location, read_address_book_bytes
from hedera_history.sources.period_files import StreamLocation
from hedera_history.times import parse_time
from hedera_history.verify.consensus import parse_consensus_ratio

LAYOUTS = {"account": BucketLayout.ACCOUNT, "node-id": BucketLayout.NODE_ID}


@dataclass(frozen=True, slots=True)
class JobFlag:
    """One flag of a job: ``name`` is its parameter, ``kind`` the type of its value (``bool``: a switch)."""

    name: str
    flag: str
    kind: type[str] | type[int] | type[bool] = str
    negated: bool = False
    """A switch that also has its ``--no-`` form."""


JOB_FLAGS = (
    JobFlag("address_book", "--address-book"),
    JobFlag("start", "--start"),
    JobFlag("end", "--end"),
    JobFlag("first_block", "--first-block", int),
    JobFlag("last_block", "--last-block", int),
    JobFlag("layout", "--layout"),
    JobFlag("network", "--network"),
    JobFlag("network_folder", "--network-folder"),
    JobFlag("block_pin", "--block-pin"),
    JobFlag("shard", "--shard", int),
    JobFlag("partitions", "--partitions", int),
    JobFlag("periods_per_partition", "--periods-per-partition", int),
    JobFlag("project", "--project"),
    JobFlag("instance", "--instance"),
    JobFlag("table_prefix", "--table-prefix"),
    JobFlag("consensus_ratio", "--consensus-ratio"),
    JobFlag("start_block", "--start-block", int),
    JobFlag("requester_pays_project", "--requester-pays-project"),
    JobFlag("reprocess", "--reprocess", bool),
    JobFlag("sidecars", "--sidecars", bool, negated=True),
    JobFlag("s3_requester_pays", "--s3-requester-pays", bool, negated=True),
    JobFlag("create_tables", "--create-tables", bool, negated=True),
    JobFlag("blocks", "--blocks", bool),
    JobFlag("block_node", "--block-node"),
)
"""Every flag ``backfill run`` and the Dataproc job share, besides SOURCE and ``--env``."""


@dataclass(frozen=True, slots=True)
class JobArguments:
    """A job's arguments as given (None: not given, the settings decide)."""

    start: str = ""
    end: str = ""
    """``--start`` and ``--end``: needed for record files, not for blocks (numbered by --first-block)."""
    source: str | None = None
    address_book: str | None = None
    first_block: int | None = None
    last_block: int | None = None
    layout: str | None = None
    network: str | None = None
    network_folder: str | None = None
    block_pin: str | None = None
    shard: int = 0
    partitions: int | None = None
    periods_per_partition: int | None = None
    project: str | None = None
    instance: str | None = None
    table_prefix: str | None = None
    consensus_ratio: str | None = None
    start_block: int | None = None
    requester_pays_project: str | None = None
    reprocess: bool = False
    sidecars: bool | None = None
    s3_requester_pays: bool | None = None
    create_tables: bool = True
    blocks: bool = False
    """SOURCE holds block files (HIP-1056), not record streams."""
    block_node: str | None = None
    """Block nodes to read the blocks --first-block to --last-block from, instead of SOURCE."""
    env: tuple[str, ...] = ()
    fail_after_blocks: int | None = None
    """Test hook: tasks stop after this many blocks (never forwarded)."""

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> JobArguments:
        """The arguments among ``params`` (a command's parameters: others are ignored, missing ones default)."""
        known = {field.name for field in fields(cls)}
        given = {name: value for name, value in params.items() if name in known}
        given["env"] = tuple(given.get("env") or ())
        return cls(**given)


def parse_job_argv(argv: Sequence[str], prog: str = "dataproc_job.py") -> JobArguments:
    """The arguments of a command line :func:`forwarded_args` wrote (argparse: exits 2 on a bad one)."""
    parser = argparse.ArgumentParser(prog=prog, description="Run a backfill job on the Spark session at hand.")
    parser.add_argument("source", nargs="?", default=None)
    for flag in JOB_FLAGS:
        if flag.kind is bool:
            action: Any = argparse.BooleanOptionalAction if flag.negated else "store_true"
            default = JobArguments.__dataclass_fields__[flag.name].default
            parser.add_argument(flag.flag, dest=flag.name, action=action, default=default)
        else:
            choices = sorted(LAYOUTS) if flag.name == "layout" else None
            parser.add_argument(flag.flag, dest=flag.name, type=flag.kind, choices=choices)
    parser.add_argument("--env", dest="env", action="append", default=[], metavar="NAME=VALUE")
    return JobArguments.from_params(vars(parser.parse_args(list(argv))))


def forwarded_args(args: JobArguments) -> list[str]:
    """``args`` as the command line :func:`parse_job_argv` reads (``--env`` and test hooks left out)."""
    out = [args.source] if args.source else []
    for flag in JOB_FLAGS:
        value = getattr(args, flag.name)
        if flag.kind is bool:
            if value is True:
                out.append(flag.flag)
            elif value is False and flag.negated:
                out.append("--no-" + flag.flag.removeprefix("--"))
        elif value not in (None, ""):
            out += [flag.flag, str(value)]
    return out


def apply_env(args: JobArguments) -> None:
    """Set the ``--env NAME=VALUE`` pairs in this process's environment, before settings are read."""
    os.environ.update(name_values(args.env, "--env"))


def job_settings(args: JobArguments) -> Settings:
    """The settings from the environment, with the flags given on top."""
    return Settings.from_env(
        project=args.project,
        bigtable_instance=args.instance,
        table_prefix=args.table_prefix,
        start_block=args.start_block,
        sidecars_enabled=args.sidecars,
        requester_pays_project=args.requester_pays_project,
        s3_requester_pays=args.s3_requester_pays,
        backfill_periods_per_partition=args.periods_per_partition,
        network=args.network,
        block_pin=args.block_pin,
    )


def job_time(text: str, option: str) -> int:
    """``--start`` or ``--end`` in nanoseconds."""
    try:
        return parse_time(text)
    except ConfigError as e:
        raise JobArgumentError(e.reason, option=option) from e


def source_url(args: JobArguments, settings: Settings) -> str:
    """SOURCE, or the network preset's bucket on GCS."""
    if args.source:
        return args.source
    if network_named(settings.network) is None:
        raise JobArgumentError("SOURCE is needed (gs://, s3:// or a directory) unless --network names a preset")
    prefix = settings.stream_prefix.strip("/")
    return f"gs://{settings.stream_bucket}" + (f"/{prefix}" if prefix else "")


def book_location(args: JobArguments, settings: Settings, start_ns: int) -> str:
    """Where the book in force at the range's start is: ``--address-book``, else the configured or preset one."""
    return args.address_book or bootstrap_book_location(settings, start_ns)


def build_job(args: JobArguments) -> BackfillJob:
    """The job ``args`` describe, every flag checked and the bootstrap book read (``--env`` applied first)."""
    apply_env(args)
    settings = job_settings(args)
    preset = network_named(settings.network)
    layout = LAYOUTS[args.layout] if args.layout else preset.layout if preset else BucketLayout.ACCOUNT
    folder = args.network_folder or (preset.node_id_folder if preset else "")
    if layout is BucketLayout.NODE_ID and not folder:
        raise JobArgumentError("the node-id layout needs --network-folder (the first folder) or a --network preset")
    if not (args.start and args.end):
        raise JobArgumentError(
            "--start and --end are needed for record files (--blocks or --block-node: block numbers)"
        )
    start, end = job_time(args.start, "--start"), job_time(args.end, "--end")
    if end <= start:
        raise JobArgumentError("--end must be after --start")
    return BackfillJob(
        source_url=source_url(args, settings),
        location=StreamLocation(layout, "", folder, args.shard),
        settings=settings,
        book=_address_book_bytes(book_location(args, settings, start), settings),
        start_ns=start,
        end_ns=end,
        ratio=parse_consensus_ratio(settings.consensus_ratio if args.consensus_ratio is None else args.consensus_ratio),
        first_block=args.first_block,
        last_block=args.last_block,
        reprocess=args.reprocess,
        partitions=args.partitions,
        fail_after_blocks=args.fail_after_blocks,
    )


def _address_book_bytes(location: str, settings: Settings) -> bytes:
    """The bootstrap book's bytes from a path or a gs:// / s3:// URL (checked to parse)."""
    if not location:
        raise JobArgumentError("an address book is needed: --address-book FILE|URL or HEDERA_HISTORY_ADDRESS_BOOK")
    data = read_address_book_bytes(location, settings)
    parse_address_book(data, location)
    return data


def is_block_job(args: JobArguments) -> bool:
    return args.blocks or bool(args.block_node)


def build_block_job(args: JobArguments) -> BlockJob:
    """The block backfill ``args`` describe: SOURCE's block files (below the --network preset's
    ``<network>/block/`` folder, else anywhere below SOURCE) or ``--block-node`` ranges, from
    ``--first-block`` (default 0) to ``--last-block``; the book (for wrapped record blocks) when given."""
    apply_env(args)
    settings = job_settings(args)
    preset = network_named(settings.network)
    nodes = args.block_node or ""
    url = "" if nodes else args.source or (f"gs://{preset.block_bucket}" if preset and preset.block_bucket else "")
    if not nodes and not url:
        raise JobArgumentError(
            "--blocks needs SOURCE (gs://, s3:// or a directory) or a --network preset's block bucket"
        )
    folder = preset.block_folder if preset is not None and not nodes and not args.source else ""
    location = args.address_book or settings.address_book
    return BlockJob(
        replace(settings, block_nodes=nodes or settings.block_nodes),
        args.first_block or 0,
        args.last_block,
        source_url=url,
        folder=folder,
        block_nodes=nodes,
        book=_address_book_bytes(location, settings) if location else None,
        ratio=parse_consensus_ratio(settings.consensus_ratio if args.consensus_ratio is None else args.consensus_ratio),
        partitions=args.partitions,
    )
