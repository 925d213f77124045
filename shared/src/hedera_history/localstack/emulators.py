"""The four local services the project is tested against, each bound to 127.0.0.1 on a free port.

``BigtableEmulator`` and ``PubSubEmulator`` run the Cloud CLI's emulator binaries, ``GcsEmulator``
runs the ``gcp-storage-emulator`` package in memory and ``S3Emulator`` runs moto in server mode.
Each one is a separate process group (see :mod:`hedera_history.localstack.processes`) with its
output in a log file. Usage::

    with PubSubEmulator(log_dir=Path("logs")) as pubsub:
        os.environ.update(pubsub.env())
        ...

``start()`` checks the prerequisites first (a missing Java or emulator component is a
:class:`~hedera_history.errors.PrerequisiteError` naming the command that installs it), then polls
a real client call until the service answers or ``startup_timeout`` passes. :meth:`Emulator.state`
records what ``hedera-history stack down`` needs to stop a service started by another process.
"""

from __future__ import annotations

import json
import sys
import tempfile
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self

from hedera_history.errors import EmulatorError, PortInUseError
from hedera_history.localstack import probes
from hedera_history.localstack.cloud_sdk import CloudSdk, find_cloud_sdk
from hedera_history.localstack.ports import LOOPBACK, accepts_connections, free_port
from hedera_history.localstack.prerequisites import (
    BIGTABLE_COMPONENT,
    PUBSUB_COMPONENT,
    Check,
    check_component,
    check_java,
    check_module,
    require,
)
from hedera_history.localstack.processes import (
    ServiceProcess,
    group_listens_on,
    process_group_alive,
    stop_process_group,
    wait_until_ready,
)

# Readiness is polled (a real client call every 0.25 s) and an emulator that exits fails at once, so
# this bound only decides how long a slow start may take. On a 2-core machine shared by several test
# runs JVM start-ups are several times slower than alone (a local Spark session: 11 s alone, 40-78 s
# with three starting at once under load), so 60 s left too little margin for the Pub/Sub JVM.
DEFAULT_STARTUP_TIMEOUT_SECONDS = 180.0
# A port picked as free can be taken by someone else before the emulator binds it; a start-up
# that fails that way (the emulator exits, or another process answers) is retried on a new port.
_START_ATTEMPTS = 3

S3_TEST_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@dataclass(frozen=True)
class EmulatorState:
    """What identifies a running emulator, for another process to use or stop it."""

    name: str
    pid: int
    port: int
    log_path: str
    env: dict[str, str]

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EmulatorState:
        try:
            raw = json.loads(text)
            return cls(
                name=str(raw["name"]),
                pid=int(raw["pid"]),
                port=int(raw["port"]),
                log_path=str(raw["log_path"]),
                env={str(k): str(v) for k, v in raw["env"].items()},
            )
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise EmulatorError(f"not a recorded emulator state: {text[:200]!r}") from e


class Emulator(ABC):
    """A local service on ``127.0.0.1:port``, started and stopped as one process group."""

    name: ClassVar[str]

    def __init__(
        self,
        *,
        port: int | None = None,
        log_dir: Path | None = None,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT_SECONDS,
        stop_with_parent: bool = True,
    ) -> None:
        """``port``: a fixed port (default: a free one). ``stop_with_parent``: end the emulator when
        the starting process dies without stopping it; turn off for services meant to outlive it."""
        self.bind_address = LOOPBACK
        self._requested_port = port
        self._port: int | None = None
        self.log_dir = log_dir
        self.startup_timeout = startup_timeout
        self.stop_with_parent = stop_with_parent
        self._process: ServiceProcess | None = None

    # ---- what each service defines ----------------------------------------------------------------

    @abstractmethod
    def prerequisites(self) -> list[Check]:
        """The checks that must pass before :meth:`start` runs anything."""

    @abstractmethod
    def command(self, port: int) -> list[str]:
        """The argv that serves on ``self.bind_address:port``."""

    @abstractmethod
    def answers(self) -> bool:
        """True when a real client call succeeds (False while starting, never raises for that)."""

    @abstractmethod
    def env(self) -> dict[str, str]:
        """The environment variables a client needs to reach this emulator."""

    # ---- shared behaviour -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise EmulatorError(f"{self.name} is not started")
        return self._port

    @property
    def host(self) -> str:
        """``127.0.0.1:PORT``, the form the ``*_EMULATOR_HOST`` variables take."""
        return f"{self.bind_address}:{self.port}"

    @property
    def pid(self) -> int | None:
        """Pid of the group leader (also the process group id), None when not running."""
        return self._process.pid if self._process is not None else None

    @property
    def log_path(self) -> Path | None:
        return self._process.log_path if self._process is not None else None

    def is_running(self) -> bool:
        return self._process is not None and self._process.is_running()

    def start(self) -> Self:
        """Start the service and wait until it answers; raises :class:`EmulatorError` otherwise."""
        if self._process is not None:
            raise EmulatorError(f"{self.name} is already started on port {self._port}")
        require(f"the {self.name} emulator", self.prerequisites())
        log_dir = self.log_dir or Path(tempfile.mkdtemp(prefix=f"hedera-history-{self.name}-"))
        attempts = 1 if self._requested_port is not None else _START_ATTEMPTS
        for attempt in range(1, attempts + 1):
            port = self._requested_port or free_port(self.bind_address)
            process = ServiceProcess(
                self.name,
                self.command(port),
                log_dir / f"{self.name}-{port}.log",
                cwd=log_dir,
                stop_with_parent=self.stop_with_parent,
            )
            self._port, self._process = port, process
            ready = False
            try:
                process.start()
                wait_until_ready(process, self._answers_from_own_process, self.startup_timeout)
                ready = True
            except PortInUseError:
                if attempt == attempts:
                    raise
            except EmulatorError:
                exited_early = process.exit_code() is not None
                if not exited_early or attempt == attempts:
                    raise
            finally:
                if not ready:
                    self._discard(process)
            if ready:
                return self
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _answers_from_own_process(self) -> bool:
        """The service answers, through a socket this emulator's processes hold.

        A port picked as free may be taken by someone else before the emulator binds it; the
        Pub/Sub and GCS emulators then keep running without listening, and the other process's
        service must not be mistaken for this one.
        """
        if not accepts_connections(self.bind_address, self.port):
            return False
        if self.pid is not None and group_listens_on(self.pid, self.port) is False:
            raise PortInUseError(
                f"another process listens on port {self.port}; {self.name} could not bind it (log {self.log_path})"
            )
        return self.answers()

    def stop(self) -> None:
        """Stop every process of the emulator's group; a no-op when not started."""
        if self._process is not None:
            process = self._process
            self._process = None
            process.stop()

    def state(self) -> EmulatorState:
        if self._process is None or self._process.pid is None:
            raise EmulatorError(f"{self.name} is not started")
        return EmulatorState(self.name, self._process.pid, self.port, str(self._process.log_path), self.env())

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = f"{self.host}, pid {self.pid}" if self.is_running() else "stopped"
        return f"<{type(self).__name__} {where}>"

    def _discard(self, process: ServiceProcess) -> None:
        process.stop()
        self._process = None
        self._port = None


class CloudCliEmulator(Emulator):
    """An emulator shipped as a component of the Google Cloud CLI."""

    def __init__(
        self,
        *,
        sdk: CloudSdk | None = None,
        port: int | None = None,
        log_dir: Path | None = None,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT_SECONDS,
        stop_with_parent: bool = True,
    ) -> None:
        """``sdk``: the Cloud CLI to take the emulator from (default: the one ``gcloud`` belongs to)."""
        super().__init__(port=port, log_dir=log_dir, startup_timeout=startup_timeout, stop_with_parent=stop_with_parent)
        self._sdk = sdk

    @property
    def sdk(self) -> CloudSdk | None:
        if self._sdk is None:
            self._sdk = find_cloud_sdk()
        return self._sdk

    def _installed_sdk(self) -> CloudSdk:
        if self.sdk is None:
            raise EmulatorError("no Google Cloud CLI found; run `hedera-history doctor`")
        return self.sdk


class BigtableEmulator(CloudCliEmulator):
    """The Cloud CLI's Bigtable emulator: in memory, data and table admin APIs, no instance admin."""

    name = "bigtable"

    def prerequisites(self) -> list[Check]:
        return [check_component(BIGTABLE_COMPONENT, self.sdk)]

    def command(self, port: int) -> list[str]:
        binary = self._installed_sdk().bigtable_emulator
        return [str(binary), "-host", self.bind_address, "-port", str(port)]

    def answers(self) -> bool:
        return probes.bigtable_answers(self.bind_address, self.port)

    def env(self) -> dict[str, str]:
        return {"BIGTABLE_EMULATOR_HOST": self.host}


class PubSubEmulator(CloudCliEmulator):
    """The Cloud CLI's Pub/Sub emulator (Java); it honours dead-letter policies."""

    name = "pubsub"

    def prerequisites(self) -> list[Check]:
        return [check_java(), check_component(PUBSUB_COMPONENT, self.sdk)]

    def command(self, port: int) -> list[str]:
        launcher = self._installed_sdk().pubsub_emulator
        return [str(launcher), f"--host={self.bind_address}", f"--port={port}"]

    def answers(self) -> bool:
        return probes.pubsub_answers(self.bind_address, self.port)

    def env(self) -> dict[str, str]:
        return {"PUBSUB_EMULATOR_HOST": self.host}


class GcsEmulator(Emulator):
    """``gcp-storage-emulator`` keeping objects in memory (without its metadata journal:
    :mod:`~hedera_history.localstack.gcs_in_memory`); speaks the GCS JSON API."""

    name = "gcs"

    @property
    def endpoint(self) -> str:
        """``http://127.0.0.1:PORT``: the value of ``STORAGE_EMULATOR_HOST`` (it includes the scheme)."""
        return f"http://{self.host}"

    def prerequisites(self) -> list[Check]:
        return [check_module("gcp_storage_emulator", "GCS emulator")]

    def command(self, port: int) -> list[str]:
        return [
            sys.executable,
            "-m",
            "hedera_history.localstack.gcs_in_memory",
            "start",
            "--host",
            self.bind_address,
            "--port",
            str(port),
            "--in-memory",
        ]

    def answers(self) -> bool:
        return probes.gcs_answers(self.endpoint, self.bind_address, self.port)

    def env(self) -> dict[str, str]:
        return {"STORAGE_EMULATOR_HOST": self.endpoint}


class S3Emulator(Emulator):
    """moto in server mode, serving the S3 API over HTTP."""

    name = "s3"

    @property
    def endpoint_url(self) -> str:
        return f"http://{self.host}"

    def prerequisites(self) -> list[Check]:
        return [check_module("moto", "S3 server")]

    def command(self, port: int) -> list[str]:
        return [sys.executable, "-m", "moto.server", "-H", self.bind_address, "-p", str(port)]

    def answers(self) -> bool:
        return probes.s3_answers(self.endpoint_url, self.bind_address, self.port)

    def env(self) -> dict[str, str]:
        """The S3-only endpoint variable boto3 honours, plus fixed test credentials so that boto3
        never looks for real ones."""
        return {"AWS_ENDPOINT_URL_S3": self.endpoint_url, **S3_TEST_CREDENTIALS}


def stop_recorded(state: EmulatorState, grace_seconds: float = 10.0) -> bool:
    """Stop an emulator another process started; False when it was no longer running.

    The recorded pid could have been reused after the emulator died, so the group is signalled
    only while its leader's command line still names the recorded port.
    """
    if not process_group_alive(state.pid):
        return False
    try:
        argv = Path(f"/proc/{state.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        argv = []
    if argv and not any(str(state.port).encode() in arg for arg in argv):
        return False
    stop_process_group(state.pid, grace_seconds)
    return True
