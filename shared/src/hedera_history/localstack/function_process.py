"""One cloud function under functions-framework, as its own process group on a loopback port.

The process runs ``python -m functions_framework --target <entry point> --source <folder>/main.py``
with the signature type the deployed trigger implies (``cloudevent`` for the bucket trigger,
``http`` for the rest; a decorator in ``main.py`` takes precedence, as it does when deployed), the
stack's environment, and one request thread more than the deployed function serves at once
(``FunctionSpec.concurrency``). It is ready when it answers an HTTP request that never reaches the
function itself (``GET /robots.txt``: a 404 or 405 from the framework).

Why the spare thread: the stack's callers never send a function more calls at once than its
concurrency (the push bridges share the store's, the schedulers call one at a time), so the spare
thread is the readiness check's, as Cloud Run checks an instance outside its request slots.
Without it a function serving one call at a time answered the check only between two calls, and
the follow function is called back to back for a window each: after a restart the next call got
in first and the check waited behind whole windows (130 s and more; past 180 s the restart failed).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Self

import requests

from hedera_history.deploy.catalogue import FunctionSpec, Trigger
from hedera_history.errors import EmulatorError, PortInUseError
from hedera_history.localstack.ports import LOOPBACK, accepts_connections, free_port
from hedera_history.localstack.processes import ServiceProcess, group_listens_on, wait_until_ready
from hedera_history.localstack.stack_state import ServiceRecord

DEFAULT_STARTUP_TIMEOUT_SECONDS = 180.0
"""Polled, and a process that exits fails at once: the bound only allows a slow start on a busy machine."""
_PROBE_TIMEOUT_SECONDS = 2.0
_START_ATTEMPTS = 3
_FOREIGN_LISTENER_SECONDS = 3.0
"""How long the port must answer from outside the function's process group before that counts."""


def signature_type(spec: FunctionSpec) -> str:
    """What the deployment gives functions-framework: Eventarc triggers deliver CloudEvents."""
    return "cloudevent" if spec.trigger is Trigger.STORAGE_FINALIZED else "http"


def function_command(spec: FunctionSpec, source_dir: Path, port: int, host: str = LOOPBACK) -> list[str]:
    return [
        sys.executable,
        "-m",
        "functions_framework",
        "--target",
        spec.entry_point,
        "--source",
        str(source_dir / "main.py"),
        "--signature-type",
        signature_type(spec),
        "--host",
        host,
        "--port",
        str(port),
    ]


def request_threads(spec: FunctionSpec) -> int:
    """The function's concurrency and a spare thread for the readiness check (module docstring)."""
    return spec.concurrency + 1


def function_environment(spec: FunctionSpec, base: Mapping[str, str]) -> dict[str, str]:
    """``base`` plus what the Cloud Functions runtime sets for ``spec`` (threads, target, service)."""
    return {
        **base,
        "THREADS": str(request_threads(spec)),
        "FUNCTION_TARGET": spec.entry_point,
        "FUNCTION_SIGNATURE_TYPE": signature_type(spec),
        "K_SERVICE": spec.name,
        "PYTHONUNBUFFERED": "1",
    }


def framework_answers(url: str) -> bool:
    """True when an HTTP server answers at ``url`` (any status); the function itself is not called."""
    try:
        response = requests.get(f"{url}/robots.txt", timeout=_PROBE_TIMEOUT_SECONDS)
    except requests.RequestException:
        return False
    response.close()
    return True


class FunctionProcess:
    """``start()`` launches the process, ``wait_ready()`` waits until it answers, ``stop()`` ends its group."""

    def __init__(
        self,
        spec: FunctionSpec,
        source_dir: Path,
        env: Mapping[str, str],
        *,
        port: int = 0,
        log_dir: Path | None = None,
        stop_with_parent: bool = True,
    ) -> None:
        """``port``: 0 picks a free one. ``env``: the variables the stack gives every function."""
        if not (source_dir / "main.py").is_file():
            raise EmulatorError(f"function {spec.name}: no main.py in {source_dir}")
        self.spec = spec
        self.source_dir = source_dir
        self.env = function_environment(spec, env)
        self._requested_port = port
        self.log_dir = log_dir or Path(tempfile.mkdtemp(prefix=f"hedera-history-{spec.name}-"))
        self.stop_with_parent = stop_with_parent
        self._port = 0
        self._process: ServiceProcess | None = None
        self._foreign_since: float | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def port(self) -> int:
        if not self._port:
            raise EmulatorError(f"function {self.name} is not started")
        return self._port

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> Self:
        if self._process is not None:
            raise EmulatorError(f"function {self.name} is already started on port {self._port}")
        self._port = self._requested_port or free_port(LOOPBACK)
        self._process = ServiceProcess(
            f"function {self.name}",
            function_command(self.spec, self.source_dir, self._port),
            self.log_dir / f"function-{self.name}-{self._port}.log",
            cwd=self.source_dir,
            extra_env=self.env,
            stop_with_parent=self.stop_with_parent,
        )
        self._process.start()
        return self

    def wait_ready(self, timeout: float = DEFAULT_STARTUP_TIMEOUT_SECONDS) -> None:
        """Wait until the function answers; a port taken by another process is tried again on a
        free one (when the port was not fixed), a start-up failure raises with the log's tail."""
        for attempt in range(1, _START_ATTEMPTS + 1):
            process = self._process
            if process is None:
                raise EmulatorError(f"function {self.name} is not started")
            try:
                wait_until_ready(process, self._answers_from_own_process, timeout)
                return
            except PortInUseError:
                if self._requested_port or attempt == _START_ATTEMPTS:
                    raise
                self.stop()
                self.start()

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stop()

    def kill(self) -> None:
        """SIGKILL the whole group at once, as a crashed instance dies (fault injection): requests
        in flight get no answer and nothing is cleaned up."""
        process, self._process = self._process, None
        if process is not None and process.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.stop()  # reaps it

    def restart(self, timeout: float = DEFAULT_STARTUP_TIMEOUT_SECONDS) -> None:
        """Start again on the same port (after :meth:`kill` or :meth:`stop`) and wait until it answers."""
        if self._process is not None:
            raise EmulatorError(f"function {self.name} is still running")
        self._requested_port = self._port or self._requested_port
        self.start()
        self.wait_ready(timeout)

    def is_running(self) -> bool:
        return self._process is not None and self._process.is_running()

    def record(self) -> ServiceRecord:
        process = self._process
        if process is None or process.pid is None:
            raise EmulatorError(f"function {self.name} is not started")
        return ServiceRecord(self.name, process.pid, str(process.log_path), str(self.port), self.port, self.url)

    def _answers_from_own_process(self) -> bool:
        process = self._process
        if process is None or not accepts_connections(LOOPBACK, self.port):
            return False
        if process.pid is not None and group_listens_on(process.pid, self.port) is False:
            # Seen once, it can be a moment of the start (the socket read from /proc before the new
            # process holds it); only a listener that stays foreign is another process's.
            now = time.monotonic()
            self._foreign_since = self._foreign_since or now
            if now - self._foreign_since >= _FOREIGN_LISTENER_SECONDS:
                self._foreign_since = None
                raise PortInUseError(
                    f"another process listens on port {self.port}; function {self.name} could not bind it"
                )
            return False
        self._foreign_since = None
        return framework_answers(self.url)
