"""The local stack's state file: what runs where, so that another process can use or stop it.

``<state dir>/state.json`` is written by ``hedera-history stack up`` (or an in-process
:class:`~hedera_history.localstack.stack.LocalStack`) and read by ``stack down``, ``status``,
``upload``, ``wait`` and the detached bridge process. It records every process group the stack
started (pid, port, log) and every name a client needs (project, instance, bucket, prefixes,
emulator addresses, function URLs).

A recorded pid may belong to another program once the stack's process has died, so a group is
taken for the stack's own only while its leader's command line still holds the recorded marker
(the port of an emulator or function, the state folder of the bridge).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hedera_history.config import Settings, env_name
from hedera_history.errors import StackError
from hedera_history.localstack.emulators import S3_TEST_CREDENTIALS, EmulatorState
from hedera_history.localstack.processes import process_group_alive, stop_process_group
from hedera_history.transport.topics import STORE_RETRY_POLICY, RetryPolicy

STATE_FILE = "state.json"
STATE_FORMAT = 1
LOG_FOLDER = "logs"
BRIDGE_READY_FILE = "bridge.ready"
BRIDGE_STATS_FILE = "bridge-stats.json"
ADDRESS_BOOK_FILE = "address-book.bin"
"""The stack's own copy of the bootstrap address book, inside the state folder."""


@dataclass(frozen=True, slots=True)
class ServiceRecord:
    """A process group the stack started: an emulator, a function or the bridge."""

    name: str
    pid: int
    log_path: str
    marker: str
    """A string the group leader's command line holds (see the module docstring)."""
    port: int = 0
    url: str = ""

    def alive(self) -> bool:
        return recorded_group_alive(self.pid, self.marker)

    def stop(self, grace_seconds: float = 10.0) -> bool:
        """Stop the group; False when it was no longer running."""
        if not self.alive():
            return False
        stop_process_group(self.pid, grace_seconds)
        return True

    @classmethod
    def for_emulator(cls, state: EmulatorState) -> ServiceRecord:
        return cls(state.name, state.pid, state.log_path, str(state.port), state.port)


@dataclass(frozen=True, slots=True)
class StackState:
    """Everything recorded about one running stack."""

    state_dir: str
    project: str
    bigtable_instance: str
    table_prefix: str
    topic_prefix: str
    bucket: str
    quarantine_bucket: str
    first_block: int
    address_book: str
    """Path of the book the functions verify with (it may not exist until an upload puts it there)."""
    bigtable_host: str
    pubsub_host: str
    storage_endpoint: str
    ingest_endpoint: str
    """Where bucket events go (normally the ingest function)."""
    sweep_endpoint: str
    """What the scheduler calls (normally the sweep function)."""
    sweep_interval_seconds: float
    poll_interval_seconds: float
    owner_pid: int
    """The process that started the stack (it runs the bridge itself when ``bridge`` is None)."""
    started_at: str
    emulators: tuple[ServiceRecord, ...] = ()
    """Emulators this stack started and stops; emulators it was attached to are not listed."""
    functions: tuple[ServiceRecord, ...] = ()
    bridge: ServiceRecord | None = None
    function_env: dict[str, str] = field(default_factory=dict)
    """The variables every function process got from the stack (``--env`` included)."""
    follow_source: str = ""
    """The bucket root (gs://, s3:// or a directory) the stack follows; empty: it takes bucket events."""
    follow_endpoint: str = ""
    """What the follower's scheduler calls back to back (normally the follow function)."""
    s3_endpoint: str = ""
    """The moto server the stack started for an s3:// source (empty: none started)."""
    store_min_backoff_seconds: float = STORE_RETRY_POLICY.minimum_seconds
    store_max_backoff_seconds: float = STORE_RETRY_POLICY.maximum_seconds
    """The retry policy the push bridges apply to messages the store function rejected."""

    @property
    def store_retry_policy(self) -> RetryPolicy:
        return RetryPolicy(self.store_min_backoff_seconds, self.store_max_backoff_seconds)

    @property
    def following(self) -> bool:
        return bool(self.follow_source)

    # ---- what clients need -----------------------------------------------------------------------

    @property
    def path(self) -> Path:
        return state_file(Path(self.state_dir))

    def function_url(self, name: str) -> str:
        for record in self.functions:
            if record.name == name:
                return record.url
        raise StackError(f"the stack in {self.state_dir} runs no function named {name}")

    def subscription_path(self, name: str) -> str:
        return f"projects/{self.project}/subscriptions/{self.topic_prefix}{name}"

    def client_env(self) -> dict[str, str]:
        """The variables a client (CLI, test, notebook) sets to reach this stack's services and data."""
        env = {
            "GOOGLE_CLOUD_PROJECT": self.project,
            "BIGTABLE_EMULATOR_HOST": self.bigtable_host,
            "PUBSUB_EMULATOR_HOST": self.pubsub_host,
            "STORAGE_EMULATOR_HOST": self.storage_endpoint,
            env_name("bigtable_instance"): self.bigtable_instance,
            env_name("stream_bucket"): self.bucket,
        }
        if self.table_prefix:
            env[env_name("table_prefix")] = self.table_prefix
        if self.topic_prefix:
            env[env_name("pubsub_topic_prefix")] = self.topic_prefix
        if self.s3_endpoint:
            env.update({env_name("s3_endpoint_url"): self.s3_endpoint, **S3_TEST_CREDENTIALS})
        return env

    def settings(self) -> Settings:
        """Settings that read and write this stack's data (emulator addresses included)."""
        return Settings.from_env(self.client_env())

    # ---- files -----------------------------------------------------------------------------------

    def to_json(self) -> str:
        data = {
            "format": STATE_FORMAT,
            **{name: getattr(self, name) for name in _SCALARS},
            "emulators": [_record_data(r) for r in self.emulators],
            "functions": [_record_data(r) for r in self.functions],
            "bridge": _record_data(self.bridge) if self.bridge is not None else None,
            "function_env": dict(self.function_env),
            **{name: getattr(self, name) for name in _OPTIONAL},
        }
        return json.dumps(data, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "") -> StackState:
        try:
            raw = json.loads(text)
            if raw.get("format") != STATE_FORMAT:
                raise StackError(f"stack state {where} has format {raw.get('format')!r}, expected {STATE_FORMAT}")
            values: dict[str, Any] = {name: raw[name] for name in _SCALARS}
            bridge = raw.get("bridge")
            policy = STORE_RETRY_POLICY
            return cls(
                **values,
                emulators=tuple(_record(r) for r in raw.get("emulators", ())),
                functions=tuple(_record(r) for r in raw.get("functions", ())),
                bridge=_record(bridge) if bridge else None,
                function_env={str(k): str(v) for k, v in raw.get("function_env", {}).items()},
                follow_source=str(raw.get("follow_source", "")),
                follow_endpoint=str(raw.get("follow_endpoint", "")),
                s3_endpoint=str(raw.get("s3_endpoint", "")),
                store_min_backoff_seconds=float(raw.get("store_min_backoff_seconds", policy.minimum_seconds)),
                store_max_backoff_seconds=float(raw.get("store_max_backoff_seconds", policy.maximum_seconds)),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise StackError(f"unreadable stack state {where}: {e}") from e

    # ---- processes -------------------------------------------------------------------------------

    def services(self) -> tuple[ServiceRecord, ...]:
        """Every recorded process group, in the order ``down`` stops them (bridge, functions, emulators)."""
        bridge = (self.bridge,) if self.bridge is not None else ()
        return (*bridge, *self.functions, *self.emulators)

    def alive(self) -> dict[str, bool]:
        """Name -> whether that process group still runs; the owner (for threads) counts as ``owner``."""
        found = {record.name: record.alive() for record in self.services()}
        if self.bridge is None:
            found["owner"] = process_alive(self.owner_pid)
        return found

    def anything_alive(self) -> bool:
        return any(record.alive() for record in self.services())


_SCALARS = (
    "state_dir",
    "project",
    "bigtable_instance",
    "table_prefix",
    "topic_prefix",
    "bucket",
    "quarantine_bucket",
    "first_block",
    "address_book",
    "bigtable_host",
    "pubsub_host",
    "storage_endpoint",
    "ingest_endpoint",
    "sweep_endpoint",
    "sweep_interval_seconds",
    "poll_interval_seconds",
    "owner_pid",
    "started_at",
)
_OPTIONAL = (
    "follow_source",
    "follow_endpoint",
    "s3_endpoint",
    "store_min_backoff_seconds",
    "store_max_backoff_seconds",
)
"""Fields a state file of an older stack may lack (read with a default)."""


def state_file(state_dir: Path) -> Path:
    return state_dir / STATE_FILE


def read_state(state_dir: Path) -> StackState | None:
    """The recorded stack, or None when the folder holds no state file."""
    path = state_file(state_dir)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise StackError(f"cannot read the stack state {path}: {e}") from e
    return StackState.from_json(text, str(path))


def require_state(state_dir: Path) -> StackState:
    state = read_state(state_dir)
    if state is None:
        raise StackError(f"no stack is recorded in {state_dir}; start one with `hedera-history stack up`")
    return state


def require_running_state(state_dir: Path) -> StackState:
    """The stack recorded in ``state_dir``, every process of it running (else a :class:`StackError`)."""
    state = require_state(state_dir)
    stopped = sorted(name for name, running in state.alive().items() if not running)
    if stopped:
        raise StackError(
            f"the stack recorded in {state_dir} is not (fully) running: {', '.join(stopped)} stopped; "
            f"run `hedera-history stack down --state-dir {state_dir}` and `stack up` again"
        )
    return state


def write_state(state: StackState) -> None:
    """Write the state file atomically (readers never see half of it)."""
    path = state.path
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(state.to_json())
        temporary.replace(path)
    except OSError as e:
        raise StackError(f"cannot write the stack state {path}: {e}") from e


def remove_state(state_dir: Path) -> None:
    for name in (STATE_FILE, BRIDGE_READY_FILE, BRIDGE_STATS_FILE):
        (state_dir / name).unlink(missing_ok=True)


def recorded_group_alive(pid: int, marker: str) -> bool:
    """True while group ``pid`` runs and its leader's command line still holds ``marker``."""
    if pid <= 0 or not process_group_alive(pid):
        return False
    try:
        command_line = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        command_line = b""
    if not command_line:
        # The leader has exited while its children run (or there is no /proc): trust the group.
        return True
    return not marker or any(marker.encode() in arg for arg in command_line.split(b"\0"))


def process_alive(pid: int) -> bool:
    """True while process ``pid`` exists."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _record_data(record: ServiceRecord) -> dict[str, Any]:
    return {
        "name": record.name,
        "pid": record.pid,
        "log_path": record.log_path,
        "marker": record.marker,
        "port": record.port,
        "url": record.url,
    }


def _record(raw: dict[str, Any]) -> ServiceRecord:
    return ServiceRecord(
        name=str(raw["name"]),
        pid=int(raw["pid"]),
        log_path=str(raw["log_path"]),
        marker=str(raw["marker"]),
        port=int(raw.get("port", 0)),
        url=str(raw.get("url", "")),
    )
