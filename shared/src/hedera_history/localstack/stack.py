"""The local stack: the whole pipeline on loopback, started and stopped as one thing.

``LocalStack(config).start()`` (or ``with LocalStack(config) as stack:``):

1. checks the prerequisites of every emulator it will start (a missing Java fails before anything runs);
2. starts the Bigtable, Pub/Sub and GCS emulators (or attaches to running ones, ``config.attached``);
3. creates the stream bucket and its quarantine bucket, every table, the topics and the store
   subscriptions (pull: the bridge pushes);
4. starts the functions of the catalogue (``deploy.catalogue``) under functions-framework, each in
   its own process group, and waits until each one answers: ingest, sweep, store and query; or,
   when it follows a source (``config.follow_source``), follow instead of ingest, as a deployment
   that follows a network's bucket runs (``infra/follow.tf``);
5. starts the bridges (:mod:`~hedera_history.localstack.bridges`): bucket events to ingest (or the
   follow function called back to back), the scheduled sweep, Pub/Sub to store over HTTP; in
   threads, or in a detached process of their own when ``config.detached`` (the command line's
   ``stack up``, whose services outlive it);
6. records all of it in ``<state dir>/state.json`` (:mod:`~hedera_history.localstack.stack_state`),
   written after every step, so ``stack down`` can clean up even a stack that failed half way.

``stop()`` ends the bridges, then the functions, then the emulators it started, and removes the
state file. A state file whose processes are all gone is stale and replaced; one with a live
process refuses a second stack in the same folder.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Self

import hedera_history
from hedera_history.config import Settings, env_name
from hedera_history.deploy.catalogue import FOLLOW, FUNCTIONS, INGEST, STORE, SWEEP, FunctionSpec
from hedera_history.errors import AddressBookNotGivenError, EmulatorError, StackError
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE
from hedera_history.localstack.bridges import StackBridges
from hedera_history.localstack.emulators import (
    DEFAULT_STARTUP_TIMEOUT_SECONDS,
    BigtableEmulator,
    Emulator,
    GcsEmulator,
    PubSubEmulator,
    S3Emulator,
)
from hedera_history.localstack.function_process import FunctionProcess
from hedera_history.localstack.prerequisites import require
from hedera_history.localstack.processes import ServiceProcess, wait_until_ready
from hedera_history.localstack.provision import create_buckets, create_s3_bucket, create_tables, create_topics
from hedera_history.localstack.stack_state import (
    ADDRESS_BOOK_FILE,
    BRIDGE_READY_FILE,
    LOG_FOLDER,
    ServiceRecord,
    StackState,
    read_state,
    remove_state,
    write_state,
)
from hedera_history.sources.base import parse_url
from hedera_history.transport.topics import STORE_RETRY_POLICY, RetryPolicy

EMULATOR_NAMES = ("bigtable", "pubsub", "gcs")
FUNCTION_NAMES = tuple(spec.name for spec in FUNCTIONS)
SERVICE_NAMES = (*EMULATOR_NAMES, *FUNCTION_NAMES)
QUARANTINE_SUFFIX = "-quarantine"
DEFAULT_STORE_PROCESSES = 2
WORKERS_VARIABLE = "WORKERS"
"""functions-framework's gunicorn worker processes (each serves ``THREADS`` requests at once)."""


@dataclass(frozen=True, slots=True)
class StackPorts:
    """A fixed port per service; 0 takes a free one."""

    bigtable: int = 0
    pubsub: int = 0
    gcs: int = 0
    ingest: int = 0
    sweep: int = 0
    store: int = 0
    follow: int = 0
    query: int = 0

    @classmethod
    def parse(cls, pairs: str | Mapping[str, int]) -> StackPorts:
        """From ``"query=8080,bigtable=8086"`` (the ``HEDERA_HISTORY_STACK_PORTS`` form) or a mapping."""
        if isinstance(pairs, str):
            found: dict[str, int] = {}
            for pair in filter(None, (part.strip() for part in pairs.split(","))):
                name, separator, number = pair.partition("=")
                if not separator:
                    raise StackError(f"a stack port is given as name=port, got {pair!r}")
                try:
                    found[name.strip()] = int(number)
                except ValueError as e:
                    raise StackError(f"port of {name.strip()} is not a number: {number!r}") from e
            pairs = found
        unknown = sorted(set(pairs) - set(SERVICE_NAMES))
        if unknown:
            raise StackError(f"unknown stack service(s) {', '.join(unknown)}; known: {', '.join(SERVICE_NAMES)}")
        for name, port in pairs.items():
            if not 0 <= port <= 65535:
                raise StackError(f"port of {name} out of range: {port}")
        return cls(**pairs)

    def of(self, name: str) -> int:
        port: int = getattr(self, name)
        return port

    def as_text(self) -> str:
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self) if getattr(self, f.name))


@dataclass(frozen=True, slots=True)
class AttachedEmulators:
    """Emulators already running (e.g. a test session's) that the stack uses but neither starts nor stops."""

    bigtable_host: str
    pubsub_host: str
    storage_endpoint: str


@dataclass(frozen=True)
class StackConfig:
    state_dir: Path = Path("var/stack")
    project: str = "local-project"
    bigtable_instance: str = "hedera-history"
    bucket: str = "hedera-streams"
    table_prefix: str = ""
    topic_prefix: str = ""
    address_book: Path | None = None
    """Copied into the state folder; None starts without one (``stack upload`` brings DIR's)."""
    first_block: int = 0
    ports: StackPorts = field(default_factory=StackPorts)
    extra_env: Mapping[str, str] = field(default_factory=dict)
    """More variables for every function (``stack up --env KEY=VALUE``); they win over the stack's."""
    sweep_interval_seconds: float = 5.0
    poll_interval_seconds: float = 0.2
    store_retry_policy: RetryPolicy = STORE_RETRY_POLICY
    """When a message the store function rejected is pushed again (the push bridges apply it as the
    deployed push subscriptions do: Terraform declares the same policy)."""
    repo_root: Path | None = None
    """Where ``functions/`` is (default: found from the installed package, else the working folder)."""
    function_sources: Mapping[str, Path] = field(default_factory=dict)
    """Function name -> folder of its ``main.py``, instead of the repository's (tests use stubs)."""
    ingest_endpoint: str | None = None
    """Where bucket events go instead of the ingest function (tests point it at a recorder)."""
    sweep_endpoint: str | None = None
    follow_source: str = ""
    """Follow this bucket root (a directory, gs:// on the stack's GCS emulator, s3:// on
    HEDERA_HISTORY_S3_ENDPOINT_URL or AWS_ENDPOINT_URL_S3, else on a moto server the stack starts)
    with the follow function instead of taking bucket events."""
    follow_start: str = ""
    """Where the follower starts without a stored position (backfill, now, a time); empty: the setting's."""
    follow_endpoint: str | None = None
    """What the follower's scheduler calls instead of the follow function (tests)."""
    attached: AttachedEmulators | None = None
    detached: bool = False
    """Services outlive this process and the bridges run in a process of their own (``stack up``)."""
    startup_timeout_seconds: float = DEFAULT_STARTUP_TIMEOUT_SECONDS
    store_processes: int = DEFAULT_STORE_PROCESSES
    """Worker processes of the store function, each with the catalogue's request threads: the
    item ranges of one period are decoded, built and written on several cores at once, as
    Cloud Functions runs them on several instances (one process would hold one interpreter lock)."""

    @classmethod
    def from_settings(cls, settings: Settings, **changes: object) -> StackConfig:
        """The stack the settings describe (project, instance, bucket, prefixes, first block, book,
        state folder, ports, sweep interval); ``changes`` override fields."""
        base = cls(
            state_dir=Path(settings.stack_state_dir),
            project=settings.project,
            bigtable_instance=settings.bigtable_instance,
            bucket=settings.stream_bucket,
            table_prefix=settings.table_prefix,
            topic_prefix=settings.pubsub_topic_prefix,
            address_book=Path(settings.address_book) if settings.address_book else None,
            first_block=settings.first_block,
            ports=StackPorts.parse(settings.stack_ports),
            sweep_interval_seconds=settings.stack_sweep_interval_seconds,
        )
        return replace(base, **changes)  # type: ignore[arg-type]

    @property
    def quarantine_bucket(self) -> str:
        return self.bucket + QUARANTINE_SUFFIX

    @property
    def following(self) -> bool:
        return bool(self.follow_source)

    def starts_s3(self) -> bool:
        """Whether the stack starts a moto server of its own: it follows s3:// and no S3 endpoint is
        configured (in the environment or ``extra_env``); never when attached to emulators."""
        if not self.following or self.attached is not None or parse_url(self.follow_source).scheme != "s3":
            return False
        configured = {**os.environ, **self.extra_env}
        return not (configured.get(env_name("s3_endpoint_url")) or configured.get("AWS_ENDPOINT_URL_S3"))

    def functions(self) -> tuple[FunctionSpec, ...]:
        """The catalogue's functions this stack runs: a following stack has no bucket events to
        ingest, a stack fed by uploads nothing to follow (the deployment leaves the same one idle)."""
        idle = INGEST if self.following else FOLLOW
        return tuple(spec for spec in FUNCTIONS if spec is not idle)


def require_book_to_follow(config: StackConfig) -> None:
    """A stack that follows verifies what it lists from its first call on: without a bootstrap book
    every call would fail. Refused before anything starts (``AddressBookNotGivenError``)."""
    if config.following and config.address_book is None:
        raise AddressBookNotGivenError(
            f"following {config.follow_source} needs the address book in force where the follower starts: "
            f"give --address-book FILE ({env_name('address_book')}), or --network NAME for a public "
            "network's packaged book"
        )


def follow_source_url(source: str) -> str:
    """``source`` as the functions read it: a directory made absolute (they run in other folders)."""
    if "://" in source:
        return source
    return str(Path(source).expanduser().resolve())


def find_repo_root() -> Path:
    """The folder holding ``functions/``: above the installed package (an editable install), else
    the working folder or one of its parents."""
    package = Path(hedera_history.__file__).resolve()
    for candidate in (*package.parents, Path.cwd(), *Path.cwd().parents):
        if (candidate / "functions" / "query" / "main.py").is_file():
            return candidate
    raise StackError("cannot find the functions/ folder: run from the repository, or pass --repo")


class LocalStack:
    """The emulators, the four functions and the bridges of one local stack (see the module docstring)."""

    def __init__(self, config: StackConfig, *, on_step: Callable[[str], None] | None = None) -> None:
        """``on_step``: told what start-up is doing now (a progress line for the command line)."""
        self.config = config
        self._on_step = on_step or (lambda _step: None)
        self.state_dir = config.state_dir.resolve()
        self.log_dir = self.state_dir / LOG_FOLDER
        self._emulators: list[Emulator] = []
        self._functions: list[FunctionProcess] = []
        self._bridges: StackBridges | None = None
        self._bridge_process: ServiceProcess | None = None
        self._state: StackState | None = None
        self._owns_state_file = False
        self._s3_endpoint = ""

    # ---- lifecycle -------------------------------------------------------------------------------

    def start(self) -> Self:
        if self._state is not None:
            raise StackError(f"the stack in {self.state_dir} is already started")
        require_book_to_follow(self.config)
        self._claim_state_dir()
        try:
            self._on_step("checking prerequisites")
            emulators = self._emulators_to_start()
            require("the local stack", [check for emulator in emulators for check in emulator.prerequisites()])
            self._on_step("starting the emulators")
            hosts = self._start_emulators(emulators)
            self._state = self._initial_state(hosts)
            write_state(self._state)
            self._on_step("creating buckets, tables, topics and subscriptions")
            self._provision()
            self._on_step("starting the functions")
            self._start_functions()
            self._on_step("starting the bridges")
            self._start_bridges()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop bridges, functions and emulators (whatever of them runs) and remove the state file."""
        if self._bridges is not None:
            bridges, self._bridges = self._bridges, None
            bridges.stop()
        if self._bridge_process is not None:
            process, self._bridge_process = self._bridge_process, None
            process.stop()
        functions, self._functions = self._functions, []
        emulators, self._emulators = self._emulators, []
        # Each group takes a second or two to wind down (gunicorn's arbiter, the JVM); side by side.
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(len(functions), len(emulators), 1)) as pool:
            for done in [pool.submit(function.stop) for function in functions]:
                done.result()
            for done in [pool.submit(emulator.stop) for emulator in emulators]:
                done.result()
        if self._owns_state_file:
            remove_state(self.state_dir)
            self._owns_state_file = False
        self._state = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    # ---- what users of a running stack need --------------------------------------------------------

    @property
    def state(self) -> StackState:
        if self._state is None:
            raise StackError("the stack is not started")
        return self._state

    def url(self, function: str) -> str:
        return self.state.function_url(function)

    def client_env(self) -> dict[str, str]:
        return self.state.client_env()

    def settings(self) -> Settings:
        return self.state.settings()

    def function(self, name: str) -> FunctionProcess:
        """The running process of one function (to stop, kill or restart it: fault injection)."""
        for function in self._functions:
            if function.name == name:
                return function
        raise StackError(f"no function {name!r} runs in this stack")

    @property
    def bridges(self) -> StackBridges | None:
        """The in-process bridges (None when they run detached)."""
        return self._bridges

    # ---- steps -----------------------------------------------------------------------------------

    def _claim_state_dir(self) -> None:
        claim_state_dir(self.state_dir)
        self._owns_state_file = True

    def _emulators_to_start(self) -> list[Emulator]:
        if self.config.attached is not None:
            return []
        config, ports = self.config, self.config.ports
        timeout, with_parent = config.startup_timeout_seconds, not config.detached
        s3 = [S3Emulator(log_dir=self.log_dir, startup_timeout=timeout, stop_with_parent=with_parent)]
        return [
            *(s3 if config.starts_s3() else []),
            BigtableEmulator(
                port=ports.bigtable or None, log_dir=self.log_dir, startup_timeout=timeout, stop_with_parent=with_parent
            ),
            PubSubEmulator(
                port=ports.pubsub or None, log_dir=self.log_dir, startup_timeout=timeout, stop_with_parent=with_parent
            ),
            GcsEmulator(
                port=ports.gcs or None, log_dir=self.log_dir, startup_timeout=timeout, stop_with_parent=with_parent
            ),
        ]

    def _start_emulators(self, emulators: list[Emulator]) -> AttachedEmulators:
        if self.config.attached is not None:
            return self.config.attached
        self._emulators = list(emulators)
        # Side by side: the Pub/Sub emulator's JVM takes longest, the others start meanwhile.
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(emulators)) as pool:
            for future in [pool.submit(emulator.start) for emulator in emulators]:
                future.result()
        env = {name: value for emulator in emulators for name, value in emulator.env().items()}
        self._s3_endpoint = env.get("AWS_ENDPOINT_URL_S3", "")
        return AttachedEmulators(
            env["BIGTABLE_EMULATOR_HOST"], env["PUBSUB_EMULATOR_HOST"], env["STORAGE_EMULATOR_HOST"]
        )

    def _initial_state(self, hosts: AttachedEmulators) -> StackState:
        config = self.config
        return StackState(
            state_dir=str(self.state_dir),
            project=config.project,
            bigtable_instance=config.bigtable_instance,
            table_prefix=config.table_prefix,
            topic_prefix=config.topic_prefix,
            bucket=config.bucket,
            quarantine_bucket=config.quarantine_bucket,
            first_block=config.first_block,
            address_book=str(self.state_dir / ADDRESS_BOOK_FILE),
            bigtable_host=hosts.bigtable_host,
            pubsub_host=hosts.pubsub_host,
            storage_endpoint=hosts.storage_endpoint,
            ingest_endpoint=config.ingest_endpoint or "",
            sweep_endpoint=config.sweep_endpoint or "",
            sweep_interval_seconds=config.sweep_interval_seconds,
            poll_interval_seconds=config.poll_interval_seconds,
            store_min_backoff_seconds=config.store_retry_policy.minimum_seconds,
            store_max_backoff_seconds=config.store_retry_policy.maximum_seconds,
            follow_source=follow_source_url(config.follow_source) if config.following else "",
            s3_endpoint=self._s3_endpoint,
            owner_pid=os.getpid(),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            emulators=tuple(ServiceRecord.for_emulator(emulator.state()) for emulator in self._emulators),
        )

    def _provision(self) -> None:
        state = self.state
        buckets = [state.bucket, state.quarantine_bucket]
        followed = parse_url(state.follow_source) if state.following else None
        if followed is not None and followed.scheme == "gs":
            buckets.append(followed.bucket)  # on the stack's GCS emulator: a live player writes into it
        elif followed is not None and followed.scheme == "s3" and state.s3_endpoint:
            create_s3_bucket(state.s3_endpoint, followed.bucket)  # the stack's own moto server
        elif followed is not None and followed.scheme == "file":
            try:
                Path(followed.prefix).mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StackError(f"cannot create the followed folder {followed.prefix}: {e}") from e
        create_buckets(state.storage_endpoint, state.project, buckets)
        create_tables(state.settings(), state.bigtable_host)
        create_topics(state.project, state.pubsub_host, state.topic_prefix)
        book = Path(state.address_book)
        given = self.config.address_book
        if given is not None and given.resolve() != book:
            try:
                shutil.copyfile(given, book)
            except OSError as e:
                raise StackError(f"cannot copy the address book {given}: {e}") from e
        elif given is None:
            book.unlink(missing_ok=True)  # a book left by an earlier stack must not be used silently

    def function_env(self) -> dict[str, str]:
        """What every function process gets from the stack, beyond the inherited environment."""
        state = self.state
        env = {
            **state.client_env(),
            env_name("table_prefix"): state.table_prefix,
            env_name("pubsub_topic_prefix"): state.topic_prefix,
            env_name("address_book"): state.address_book,
            env_name("quarantine_url"): f"gs://{state.quarantine_bucket}",
            env_name("first_block"): str(state.first_block),
        }
        if state.following:
            # As deployed: every function's stream bucket is the followed one (the sweep retries
            # what the follower left pending from there).
            env[env_name("stream_bucket")] = state.follow_source
            env[env_name("follow_source")] = state.follow_source
            # After a cutover the blocks are in the same bucket (<network>/block/), as `generate` writes them.
            env[env_name("block_source")] = state.follow_source
            followed = parse_url(state.follow_source)
            if followed.scheme == "file":
                env[env_name("ledger_publication")] = str(Path(followed.prefix) / LEDGER_PUBLICATION_FILE)
            if self.config.follow_start:
                env[env_name("follow_start")] = self.config.follow_start
        env.update(self.config.extra_env)
        return env

    def _source_of(self, spec: FunctionSpec) -> Path:
        override = self.config.function_sources.get(spec.name)
        if override is not None:
            return override
        return (self.config.repo_root or find_repo_root()) / spec.source

    def _start_functions(self) -> None:
        env = self.function_env()
        for spec in self.config.functions():
            function = FunctionProcess(
                spec,
                self._source_of(spec),
                process_env(spec, env, self.config.store_processes),
                port=self.config.ports.of(spec.name),
                log_dir=self.log_dir,
                stop_with_parent=not self.config.detached,
            )
            self._functions.append(function)
            function.start()
        for function in self._functions:
            function.wait_ready(self.config.startup_timeout_seconds)
        records = tuple(function.record() for function in self._functions)
        urls = {record.name: record.url for record in records}
        self._state = replace(
            self.state,
            functions=records,
            ingest_endpoint=self.config.ingest_endpoint or urls.get(INGEST.name, ""),
            sweep_endpoint=self.config.sweep_endpoint or urls[SWEEP.name],
            follow_endpoint=(self.config.follow_endpoint or urls.get(FOLLOW.name, "")) if self.config.following else "",
            function_env=env,
        )
        write_state(self._state)

    def _start_bridges(self) -> None:
        if not self.config.detached:
            self._bridges = StackBridges(self.state, stats_dir=self.state_dir).start()
            return
        ready = self.state_dir / BRIDGE_READY_FILE
        ready.unlink(missing_ok=True)
        process = ServiceProcess(
            "bridge",
            [sys.executable, "-m", "hedera_history.cli.main", "stack", "bridge", "--state-dir", str(self.state_dir)],
            self.log_dir / "bridge.log",
            cwd=self.state_dir,
        )
        self._bridge_process = process
        process.start()
        wait_until_ready(process, ready.is_file, self.config.startup_timeout_seconds, poll_seconds=0.1)
        assert process.pid is not None
        record = ServiceRecord("bridge", process.pid, str(process.log_path), str(self.state_dir))
        self._state = replace(self.state, bridge=record)
        write_state(self._state)

    def detach(self) -> StackState:
        """Leave the services running when this object goes away (``stack up``); returns their state."""
        if not self.config.detached:
            raise StackError("only a detached stack can be left running")
        state = self.state
        self._emulators, self._functions = [], []
        self._bridge_process = None
        self._owns_state_file = False
        return state


def process_env(spec: FunctionSpec, env: Mapping[str, str], store_processes: int) -> Mapping[str, str]:
    """``env`` for the process of ``spec``; the store's runs ``store_processes`` workers."""
    return {**env, WORKERS_VARIABLE: str(store_processes)} if spec.name == STORE.name else env


def claim_state_dir(state_dir: Path) -> StackState | None:
    """Make ``state_dir`` ready for a new stack. A recorded stack with a live process is a
    :class:`StackError`; a stale one (nothing of it runs) is removed and returned."""
    try:
        existing = read_state(state_dir)
    except StackError as e:
        raise StackError(f"{e}; if no stack runs from {state_dir}, delete that file") from e
    if existing is not None:
        if existing.anything_alive():
            raise StackError(
                f"a stack is already running from {state_dir}; "
                f"stop it first: hedera-history stack down --state-dir {state_dir}"
            )
        remove_state(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    return existing


def stop_recorded_stack(state: StackState, grace_seconds: float = 10.0) -> dict[str, bool]:
    """Stop every process group a state file records (bridge, functions, emulators, in that order)
    and remove the state file. Returns name -> whether it was still running."""
    stopped: dict[str, bool] = {}
    failures: list[str] = []
    for record in state.services():
        try:
            stopped[record.name] = record.stop(grace_seconds)
        except EmulatorError as e:
            failures.append(f"{record.name}: {e}")
    if failures:
        raise StackError("some processes of the stack would not stop: " + "; ".join(failures))
    remove_state(Path(state.state_dir))
    return stopped
