"""``hedera-history follow``: follow a network's bucket into the pipeline (docs/follow.md).

The same follower the deployed ``follow`` function runs (``hedera_history.follow``), in this
process: it lists the bucket's node folders, hands each new period to ingest (which publishes to
the pipeline's Pub/Sub topics, PUBSUB_EMULATOR_HOST for the emulator) and keeps its position in
Bigtable. It runs for ``--seconds``, or until interrupted (Ctrl-C ends the window cleanly: the
hand-offs under way finish and the position is stored).
"""

from __future__ import annotations

import json

import click

from hedera_history import logs
from hedera_history.cli.common import network_options
from hedera_history.config import Settings
from hedera_history.follow.in_process import follow_in_process


@click.command("follow")
@network_options
@click.option(
    "--source",
    default=None,
    metavar="URL",
    help="Bucket root to follow: gs://bucket, s3://bucket or a directory (default: the network preset's "
    "bucket) [HEDERA_HISTORY_FOLLOW_SOURCE].",
)
@click.option(
    "--start",
    default=None,
    metavar="backfill|now|TIME|block:N",
    help="Where to start without a stored position: after the last complete block in the store, now, a "
    "time (ISO 8601 or the stream-file name form), or block N of a network already on block streams "
    "[HEDERA_HISTORY_FOLLOW_START].",
)
@click.option("--reset", is_flag=True, help="Forget the stored position and start from --start.")
@click.option(
    "--seconds", type=click.FloatRange(min=0), default=None, help="Follow this long, then stop (default: until Ctrl-C)."
)
@click.option("--address-book", default=None, help="Bootstrap address book [HEDERA_HISTORY_ADDRESS_BOOK].")
@click.option(
    "--first-block", type=int, default=None, help="First block of the deployment [HEDERA_HISTORY_FIRST_BLOCK]."
)
def follow(
    *,
    network: str | None,
    block_pin: str | None,
    source: str | None,
    start: str | None,
    reset: bool,
    seconds: float | None,
    address_book: str | None,
    first_block: int | None,
) -> None:
    """Follow the network's bucket, seconds behind, into the verification and publication path."""
    settings = Settings.from_env(
        network=network,
        block_pin=block_pin,
        follow_source=source,
        follow_start=start,
        address_book=address_book,
        first_block=first_block,
    )
    logs.configure("follow", settings.log_level)
    report = follow_in_process(settings, seconds=seconds, reset=reset)
    click.echo(json.dumps(report.as_dict(), indent=2, sort_keys=True))
    if not report.followed:
        raise click.ClickException("another follower holds the lease (one follows at a time)")
