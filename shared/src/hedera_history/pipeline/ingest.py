"""What the ingest function does with one uploaded object: the dispatcher in front of the handlers.

An object is a record, sidecar or signature file of a period (``pipeline.ingest_record``), a
block file (``pipeline.ingest_block``: its proof is inside, so it is verified and published on its
own upload), an errata file or a node's signature for one (``pipeline.ingest_errata``), or no concern of the
pipeline (ignored). The period's progress through its stages is ``pipeline.period_state``.

Any node's record, sidecar or signature file may trigger it, in any order, many at once, for the
same period. Each run reads the period's files from every node folder, verifies the period
(signatures against the address book in force, stake consensus, record and sidecar hashes), and
publishes the block as a Cardinal Streams batch. Every step is idempotent, so concurrent runs for
one period publish the same bytes and the consumer keeps one copy.

Runs triggered by the other uploads of a period while one run verifies it wait for that run's
result (a claim cell with a lifetime, ``pipeline.period_state``) instead of verifying and publishing the
same block again; they then only do their own file's part (a late signature, a copy to check).

Outcomes:

- not a stream file, or outside the configured prefix: ignored;
- consensus not reached yet, a record or sidecar not uploaded yet, a pre-V6 block whose predecessor
  is not known yet: the period is *pending* (a later upload or the sweep retries it);
- verified on an address book or node stakes not certain yet (a block before it not published, so
  what it changed is unknown): *held*, pending until it is, then verified again (at once by the run
  that publishes the blocks before it); never published on a state that may be wrong;
- two hashes each over the threshold: a *fork*, pending and alerted (``consensus fork``), never decided;
- a file that can never verify (a node's bad signature, a copy whose hashes differ from the signed
  ones): that file is *quarantined* (reason in the state table, bytes copied to the quarantine
  location); the period itself goes on from the other nodes' files;
- verified: published; chain links with the neighbouring blocks checked (a break is recorded and
  logged as an error for alerting, never silently accepted);
- already published: a late node signature is verified and its cell added; other files are checked
  against the published hashes (a differing copy is quarantined).
"""

from __future__ import annotations

from hedera_history.config import Settings
from hedera_history.errata.errata_paths import is_errata_path
from hedera_history.errors import FileNameError
from hedera_history.formats.names import is_block_file_name
from hedera_history.formats.stream_paths import parse_object_path
from hedera_history.pipeline.ingest_block import block_checker, ingest_block_upload
from hedera_history.pipeline.ingest_context import IngestContext, IngestResult, Outcome, Publisher
from hedera_history.pipeline.ingest_errata import ingest_errata
from hedera_history.pipeline.ingest_late import recheck_signatures
from hedera_history.pipeline.ingest_publish import publish_batch
from hedera_history.pipeline.ingest_record import HELD_FOR_STATE, ingest_period
from hedera_history.sources.period_files import StreamLocation

__all__ = [
    "HELD_FOR_STATE",
    "IngestContext",
    "IngestResult",
    "Outcome",
    "Publisher",
    "ignored_reason",
    "ingest_errata",
    "ingest_object",
    "ingest_period",
    "publish_batch",
    "recheck_signatures",
]


def ignored_reason(name: str, settings: Settings) -> str | None:
    """Why the object is no concern of the pipeline (None: a stream, sidecar, signature or errata file)."""
    prefix = settings.stream_prefix
    if prefix and not name.startswith(prefix.rstrip("/") + "/"):
        return f"outside the stream prefix {prefix}"
    if is_errata_path(name) or is_block_file_name(name):
        return None
    try:
        parse_object_path(name)
    except FileNameError as e:
        return e.reason
    return None


def ingest_object(ctx: IngestContext, name: str) -> IngestResult:
    """Handle the upload of ``name`` (relative to the bucket root): hand it to its handler."""
    reason = ignored_reason(name, ctx.settings)
    if reason is not None:
        return IngestResult(Outcome.IGNORED, reason=reason)
    if is_errata_path(name):
        return ingest_errata(ctx, name)
    if is_block_file_name(name):
        return ingest_block_upload(ctx, name, block_checker(ctx.settings))
    path = parse_object_path(name)
    return ingest_period(ctx, path.file.period_key, StreamLocation.of(path), trigger=path)
