"""The one configuration module.

Every setting is a field of :class:`Settings` with the environment variable that sets it and a
line of documentation; ``docs/configuration.md`` is generated from these fields
(``hedera-history config docs``) and a test keeps it current. CLI flags mirror the variables.
Nothing is read from the environment at import time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any

from hedera_history.errors import ConfigError
from hedera_history.networks import network_named

PREFIX = "HEDERA_HISTORY_"


def setting(default: Any, doc: str, env: str | None = None) -> Any:
    """A settings field; ``env`` defaults to ``HEDERA_HISTORY_<FIELD NAME>``."""
    return field(default=default, metadata={"doc": doc, "env": env})


@dataclass(frozen=True)
class Settings:
    # --- Google Cloud ---------------------------------------------------------------------------
    project: str = setting("local-project", "Google Cloud project id.", env="GOOGLE_CLOUD_PROJECT")
    bigtable_instance: str = setting("hedera-history", "Bigtable instance id.")
    bigtable_emulator_host: str = setting(
        "",
        "host:port of a Bigtable emulator; when set, no credentials are used.",
        env="BIGTABLE_EMULATOR_HOST",
    )
    pubsub_emulator_host: str = setting(
        "", "host:port of a Pub/Sub emulator; when set, no credentials are used.", env="PUBSUB_EMULATOR_HOST"
    )
    storage_emulator_host: str = setting(
        "",
        "http://host:port of a GCS emulator; when set, no credentials are used.",
        env="STORAGE_EMULATOR_HOST",
    )
    table_prefix: str = setting("", "Prefix for every Bigtable table id (several deployments in one instance).")
    retention_days: int = setting(
        0,
        "Keep the last N days of history, in chain (consensus) time; 0 keeps everything (see docs/schema.md).",
    )
    sidecar_retention_days: int = setting(
        0, "Own chain-time window of the sidecars table in days; 0 follows HEDERA_HISTORY_RETENTION_DAYS."
    )
    bigtable_timeout_seconds: float = setting(
        30.0, "Longest time one Bigtable call (with its retries) may take before it counts as unavailable."
    )
    bigtable_app_profile: str = setting(
        "",
        "Bigtable app profile of every data call; empty: the instance's default profile. A deployment gives "
        'each function its own (docs/deploy.md, "Bigtable app profiles"); a replicated instance needs a '
        "single-cluster profile with transactional writes for anything that writes state.",
    )

    # --- Stream and verification ---------------------------------------------------------------
    network: str = setting(
        "custom",
        "Network preset: mainnet, testnet, previewnet, demo, or custom (nothing preset). A preset fills in "
        "the stream bucket and prefix, the requester-pays and anonymous flags, the bootstrap address book "
        "and the block pin, each unless set explicitly (docs/networks.md).",
    )
    stream_bucket: str = setting("hedera-streams", "Bucket (or local directory) the nodes upload into.")
    stream_prefix: str = setting("", "Folder inside the bucket above the node folders.")
    address_book: str = setting("", "Path or gs:// URL of the bootstrap address book (NodeAddressBook bytes).")
    consensus_ratio: float = setting(1 / 3, "Share of total stake that must sign one file hash.")
    start_block: int = setting(
        0,
        "Block number of the first record file before V6 when no block pin is in force (setting it keeps a "
        "network preset's pin out).",
    )
    block_pin: str = setting(
        "",
        "CONSENSUS_END_NS:BLOCK_NUMBER: the record file with that consensus end is that block, and files "
        "before V6 count from it as the mirror node numbers them (docs/networks.md); empty: none, or the "
        "network preset's when HEDERA_HISTORY_START_BLOCK is not set.",
    )
    duplicate_blocks: str = setting(
        "",
        "NUMBER:FIRST_END_NS:SECOND_END_NS (comma-separated): two record files, by consensus end, that carry "
        "one block number; they are stored as one block, as the mirror node merges them (docs/schema.md); "
        "empty: the network preset's (mainnet: block 44029066).",
    )
    first_block: int = setting(
        0, "First block number this deployment holds: the root of the contiguous watermark (every block from it on)."
    )
    max_decompressed_bytes: int = setting(
        256 * 1024 * 1024, "Largest decompressed record or sidecar file accepted (a gzip bomb is an error)."
    )
    sidecars_enabled: bool = setting(True, "Fetch, verify and store sidecar files.")
    ledger_id: str = setting(
        "",
        "Hex of the TSS ledger id block-stream blocks are verified against: block 0 must publish it (its "
        "roster then checks later blocks); empty: the network preset's, else block 0's own (docs/block-streams.md).",
    )
    ledger_publication: str = setting(
        "",
        "File holding block 0's ledger id publication (the SignedTransaction bytes) that native blocks are "
        "checked against when block 0 is not among the blocks read (ingest and the follower read one block at "
        "a time); pinned by the ledger id when one is set.",
    )
    unsigned_blocks: bool = setting(
        False,
        "Store block-stream blocks whose proof is a pre-TSS placeholder (SHA-384 of the root: HAPI 0.73 test "
        "networks) as unsigned, their root and chain checked; any other proof that does not verify is refused.",
    )
    check_every_copy: bool = setting(
        False,
        "Download and check every node's copy of a published period's record file (an audit of each "
        "node's uploads, 30 times the stream's reads); off: only the copies of nodes whose signature did "
        "not name the published file hash (docs/pipeline.md).",
    )
    sweep_min_age_seconds: int = setting(
        60, "The sweep retries a pending period only once its newest upload is at least this old."
    )
    sweep_max_periods: int = setting(500, "Most pending periods one sweep run retries (oldest first).")
    reconcile_after_seconds: float = setting(
        180.0,
        "The sweep republishes a published period whose block is still incomplete this long after it was "
        "published (then twice as long after each republish, at most an hour; docs/pipeline.md).",
    )
    reconcile_max_republish: int = setting(50, "Most periods one sweep run republishes (oldest first).")
    sweep_max_dead_letters: int = setting(
        100,
        "Most dead letters one sweep run pulls from the dead-letter holds and sends back to their topics "
        "(a message already sent back 3 times stays held for the operator; docs/transport.md); 0: none.",
    )

    # --- Object sources (gs://, s3://, local) --------------------------------------------------
    requester_pays_project: str = setting(
        "", "Project billed for reads from requester-pays GCS buckets (empty: the bucket owner pays)."
    )
    s3_endpoint_url: str = setting("", "Endpoint URL of an S3-compatible server (empty: AWS).")
    s3_region: str = setting("us-east-1", "AWS region of the S3 buckets read.")
    s3_requester_pays: bool = setting(False, "Send RequestPayer=requester with every S3 request.")
    s3_anonymous: bool = setting(False, "Read S3 without credentials (unsigned requests, public buckets).")
    source_timeout_seconds: float = setting(
        60.0, "Longest time one object-store call (retries included) may take before it counts as failed."
    )
    quarantine_url: str = setting(
        "", "gs://bucket/prefix or local directory that receives copies of files that can never verify."
    )

    # --- Follower (hedera-history follow; docs/follow.md) ------------------------------------------
    follow_source: str = setting(
        "",
        "Bucket root the follower lists (gs://bucket, s3://bucket or a directory; node folders below "
        "HEDERA_HISTORY_STREAM_PREFIX); empty: gs://<HEDERA_HISTORY_STREAM_BUCKET>.",
    )
    follow_start: str = setting(
        "backfill",
        "Where a follower without a stored position starts: backfill (after the last complete block in the "
        "store), now, a time (ISO 8601 or the stream-file name form), or block:N (a network already on block "
        "streams, from block N). On an empty store, backfill and now start on the newest block when the "
        "network's newest block is a native one (it has cut over).",
    )
    follow_poll_seconds: float = setting(0.5, "How often the follower lists its hot node folders.")
    follow_hot_nodes: int = setting(
        3, "Node folders listed every poll (rotated over the folders that keep up); 0: every folder every poll."
    )
    follow_full_listing_seconds: float = setting(10.0, "How often the follower lists every node folder.")
    follow_settle_seconds: float = setting(
        1.0, "Wait from a period's first signature file seen to its hand-off, so more nodes have uploaded."
    )
    follow_give_up_seconds: float = setting(
        300.0,
        "A period still without consensus this long after it was first seen is reported (ERROR 'period "
        "without consensus') and left pending for the sweep.",
    )
    follow_window_seconds: float = setting(
        65.0,
        "How long one call of the deployed follow function follows before it returns its report: a little "
        "longer than the scheduler's minute, so the next call is waiting for the lease when this one ends.",
    )
    follow_lease_seconds: float = setting(
        15.0, "Lifetime of the follower lease (renewed every tick): a crashed follower's successor waits this long."
    )
    follow_workers: int = setting(4, "Periods the follower verifies at once.")
    follow_cache_bytes: int = setting(
        64 * 1024 * 1024, "Bytes of stream files the follower keeps in memory, so retries do not read them again."
    )

    block_source: str = setting(
        "",
        "Bucket root the follower reads block files from after the cutover (gs://, s3:// or a directory; "
        "<network>/block/ below it); empty: the network preset's block bucket on GCS, else no bucket.",
    )
    follow_cutover_seconds: float = setting(
        6.0,
        "How long no record period must arrive (after the last one was published) before the follower looks "
        "for the next block in the block sources and, when found, switches to blocks (for good once a block is stored "
        "after the last record file: HEDERA_HISTORY_FOLLOW_BLOCK_FALLBACK_SECONDS).",
    )
    follow_cutover_hapi_version: str = setting(
        "",
        "The last HAPI version that writes record files (major.minor.patch; the cutover comes with a later "
        "release): once the last record file is at it the follower asks for the next block every tick, and "
        "a block of a later version switches it at once; below it only a quiet interval and a block of a "
        "later version switch it. Empty: the network preset's (0.79.0 on mainnet and testnet); none "
        "(custom networks): the quiet interval and the block's existence alone decide.",
    )
    follow_block_poll_seconds: float = setting(
        0.1,
        "After the cutover, how often the follower asks its block sources for the next block between ticks; "
        "the tick runs as soon as it is there (the reference mirror node polls blocks every 100 ms). 0: once "
        "a tick (HEDERA_HISTORY_FOLLOW_POLL_SECONDS).",
    )
    follow_block_alert_seconds: float = setting(
        30.0,
        "After the cutover, how long without a new block before the follower logs 'follower no block' "
        "(an error the deployment alerts on).",
    )
    follow_block_fallback_seconds: float = setting(
        8.0,
        "After the switch to blocks, how long no block may advance before the follower looks for a record file "
        "after the last one stored and, when one links to it and no block is stored after it, goes back to "
        "record files (the reference mirror node's AUTO mode switches back after its cutoverThreshold, 8 s). "
        "0: never goes back.",
    )

    # --- Block nodes (HIP-1081; docs/block-streams.md) ------------------------------------------
    block_nodes: str = setting(
        "",
        "Block nodes blocks are read from over gRPC, comma separated, each [tls://]host[:port][@priority] "
        "(port 40840 by default; lower priority first, then the order given); empty: the network preset's "
        "(no public network publishes any yet).",
    )
    block_node_discovery: bool = setting(
        True,
        "Read blocks also from the block nodes registered on chain (HIP-1137 registered nodes with an endpoint "
        "offering the block-node publish, status and subscribe APIs), as the follower finds them in the blocks it "
        "reads, after those of HEDERA_HISTORY_BLOCK_NODES. Off while HEDERA_HISTORY_UNSIGNED_BLOCKS is set.",
    )
    block_node_status_timeout_seconds: float = setting(
        2.0, "Longest wait for a block node's serverStatus answer (the first call on a connection also connects)."
    )
    block_node_block_timeout_seconds: float = setting(
        30.0,
        "Longest wait for a getBlock answer, and in a subscription for each next whole block; past it the "
        "call is cancelled and counts as a failure of that block node.",
    )
    block_node_max_attempts: int = setting(
        3, "Failed calls in a row after which a block node is put aside (asked only when no other can serve)."
    )
    block_node_readmit_seconds: float = setting(60.0, "How long a block node that was put aside stays aside.")
    block_node_max_message_bytes: int = setting(
        131_072_000, "Largest gRPC message accepted from a block node (one item set, or one getBlock answer)."
    )

    # --- Pub/Sub --------------------------------------------------------------------------------
    pubsub_topic_prefix: str = setting(
        "", "Prefix for every Pub/Sub topic and subscription id (several deployments in one project)."
    )
    publish_timeout_seconds: float = setting(
        60.0, "Longest time a publish (retries included) may take before it counts as failed."
    )

    # --- Errata (HIP-639) -----------------------------------------------------------------------
    errata_council_keys: str = setting(
        "",
        "Council keys that approve errata: comma-separated hex Ed25519 public keys, or a path to a file "
        "holding them (one a line, # comments); empty: every errata is refused.",
    )
    errata_council_threshold: int = setting(
        0,
        "Valid council signatures an errata needs; 0: a super-majority (strictly more than 2/3 of the keys). "
        "A smaller number than the super-majority is refused.",
    )

    # --- Derived state (hbar balances) ---------------------------------------------------------
    balances_enabled: bool = setting(
        True,
        "Apply derived hbar balances (docs/errata.md) in the store function behind the contiguous watermark "
        "and in each sweep, one run at a time (a lease in the balances table); without a snapshot loaded "
        "before the first block, balances start from zero at HEDERA_HISTORY_FIRST_BLOCK.",
    )
    balances_blocks_per_store_run: int = setting(
        16, "Most blocks one store-function call applies to derived balances (the sweep catches up the rest)."
    )
    balances_blocks_per_sweep: int = setting(2000, "Most blocks one sweep run applies to derived balances.")

    # --- Backfill (Spark) ------------------------------------------------------------------------
    backfill_periods_per_partition: int = setting(
        500, "Periods one backfill task verifies and writes (a partition); also the unit of a re-run."
    )
    dataproc_region: str = setting("us-central1", "Dataproc region that `backfill submit` sends the job to.")
    dataproc_staging_url: str = setting(
        "", "gs://bucket/prefix where `backfill submit` uploads the wheel, the job file and the address book."
    )
    dataproc_container_image: str = setting(
        "",
        "Container image of Dataproc Serverless backfill batches, in full (empty: the image repository's, "
        "at the image tag).",
    )
    dataproc_image_repository: str = setting(
        "",
        "Artifact Registry image (no tag) Cloud Build pushes the backfill's container to "
        "(<region>-docker.pkg.dev/<project>/<repository>/backfill); set by Terraform.",
    )
    dataproc_image_tag: str = setting(
        "main", "Tag of the backfill's image: a commit, or a branch name for the newest build of that branch."
    )
    dataproc_service_account: str = setting(
        "", "Service account a Dataproc Serverless backfill batch runs as (empty: the project's default)."
    )

    # --- Stream generator -----------------------------------------------------------------------
    key_cache_dir: str = setting(
        "",
        "Folder caching the generator's deterministic RSA node keys (empty: ~/.cache/hedera-history/keys).",
    )

    # --- Local stack (hedera-history stack ...) -------------------------------------------------
    stack_state_dir: str = setting(
        "var/stack", "Folder of the local stack's state file and logs (`hedera-history stack --state-dir`)."
    )
    stack_ports: str = setting(
        "",
        "Fixed local stack ports as name=port pairs, comma separated (bigtable, pubsub, gcs, ingest, sweep, "
        "store, query); a service not named, or given 0, takes a free port.",
    )
    stack_sweep_interval_seconds: float = setting(
        5.0, "How often the local stack calls the sweep function, as Cloud Scheduler would; 0 never calls it."
    )

    # --- Logging --------------------------------------------------------------------------------
    log_level: str = setting("INFO", "Log level: DEBUG, INFO, WARNING or ERROR.")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``environ`` (default ``os.environ``), then ``overrides`` (e.g. CLI flags)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            name = env_name(f.name)
            if name in env:
                values[f.name] = _convert(f.name, env[name], f.default)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**_with_network_preset(values))

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)


def _with_network_preset(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the network preset's facts filled in where nothing was set explicitly.

    An explicit ``start_block`` keeps the preset's block pin out: the user chose the numbering.
    The requester-pays and anonymous flags describe the preset's bucket: another bucket (a copy,
    an emulator's) keeps the settings' own.
    """
    preset = network_named(str(values.get("network", "custom")))
    if preset is None:
        return values
    filled = dict(values)

    def fill(name: str, value: Any) -> None:
        if filled.get(name) in (None, ""):
            filled[name] = value

    fill("stream_bucket", preset.bucket)
    fill("stream_prefix", preset.prefix)
    fill("address_book", str(preset.bootstrap_book()))
    if filled["stream_bucket"] == preset.bucket:
        if "s3_requester_pays" not in values:
            filled["s3_requester_pays"] = preset.requester_pays
        if "s3_anonymous" not in values:
            filled["s3_anonymous"] = preset.anonymous
        if preset.requester_pays and values.get("project"):
            fill("requester_pays_project", values["project"])
    if preset.pin is not None and "start_block" not in values:
        fill("block_pin", str(preset.pin))
    fill("duplicate_blocks", preset.duplicate_blocks)
    if preset.ledger_id is not None:
        fill("ledger_id", preset.ledger_id.hex())
    fill("block_nodes", ",".join(preset.block_nodes))
    if preset.cutover is not None:
        fill("follow_cutover_hapi_version", ".".join(str(part) for part in preset.cutover.after_hapi_version))
    return filled


def env_name(field_name: str) -> str:
    for f in fields(Settings):
        if f.name == field_name:
            return f.metadata.get("env") or PREFIX + field_name.upper()
    raise ConfigError(f"no setting named {field_name!r}")


def _convert(name: str, raw: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            lowered = raw.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(raw)
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
        return raw
    except ValueError as e:
        raise ConfigError(f"{env_name(name)}={raw!r} is not a valid {type(default).__name__}") from e


def docs_markdown() -> str:
    """The text of ``docs/configuration.md``."""
    lines = [
        "# Configuration",
        "",
        "Every setting is an environment variable; every CLI flag of the same name overrides it.",
        "This page is generated from `hedera_history/config.py` by `hedera-history config docs`.",
        "",
        "| variable | default | meaning |",
        "| --- | --- | --- |",
    ]
    for f in fields(Settings):
        default = f.default if f.default is not MISSING else ""
        shown = f"`{default}`" if default != "" else "(empty)"
        lines.append(f"| `{env_name(f.name)}` | {shown} | {f.metadata['doc']} |")
    return "\n".join(lines) + "\n"
