"""``hedera-history deadletters replay``: send what the store subscriptions parked back to its topic.

Run it once whatever made the store function fail is fixed (docs/transport.md, "Dead letters").
The sweep's reconciler republishes incomplete blocks by itself, and the sweep sends a bounded
number of dead letters back each run, but not one it already sent back three times; this sends
every held one back whatever its count, and empties the holds the ``dead_letters`` alert watches.
"""

from __future__ import annotations

import click

from hedera_history.config import Settings
from hedera_history.transport.dead_letters import replay_dead_letters


@click.group("deadletters")
def deadletters() -> None:
    """Dead letters of the store subscriptions (docs/transport.md)."""


@deadletters.command("replay")
@click.option("--project", default=None, help="Google Cloud project [GOOGLE_CLOUD_PROJECT].")
@click.option(
    "--topic-prefix", default=None, help="Prefix of every topic and subscription [HEDERA_HISTORY_PUBSUB_TOPIC_PREFIX]."
)
@click.option("--max", "max_messages", type=click.IntRange(min=1), default=10_000, show_default=True)
def replay(*, project: str | None, topic_prefix: str | None, max_messages: int) -> None:
    """Publish every held dead letter again to the topic it came from (PUBSUB_EMULATOR_HOST for the
    emulator); each one is acknowledged on its hold only once published."""
    settings = Settings.from_env(project=project, pubsub_topic_prefix=topic_prefix)
    report = replay_dead_letters(
        settings.project,
        prefix=settings.pubsub_topic_prefix,
        emulator_host=settings.pubsub_emulator_host,
        max_messages=max_messages,
    )
    for topic, count in report.replayed.items():
        click.echo(f"{topic}: {count} replayed")
