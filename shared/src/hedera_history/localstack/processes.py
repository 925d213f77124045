"""Run a service in its own process group, with its output in a log file, and stop the whole group.

A service started here gets a fresh process group (the group id is the leader's pid), so stopping
it signals every process it spawned, not only the first one: wrappers such as the Cloud CLI leave
the real emulator running when only the wrapper is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from hedera_history.errors import EmulatorError
from hedera_history.localstack.ports import listening_socket_inodes
from hedera_history.logs import log_tail

_PROC = Path("/proc")


class ServiceProcess:
    """One long-running service process, the leader of its own process group."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        log_path: Path,
        *,
        cwd: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
        stop_with_parent: bool = False,
    ) -> None:
        """``stop_with_parent``: also start a watchdog in the group that ends it when this process
        dies without calling :meth:`stop` (a killed test run must not leave emulators behind)."""
        self.name = name
        self.argv = list(argv)
        self.log_path = log_path
        self.cwd = cwd
        self.extra_env = dict(extra_env or {})
        self.stop_with_parent = stop_with_parent
        self._leader: subprocess.Popen[bytes] | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        """The leader's pid, which is also the process group id; None before start."""
        return self._leader.pid if self._leader is not None else None

    def start(self) -> None:
        if self._leader is not None:
            raise EmulatorError(f"{self.name} is already started (pid {self._leader.pid})")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **self.extra_env}
        with self.log_path.open("ab") as log:
            log.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {' '.join(self.argv)}\n".encode())
            log.flush()
            try:
                self._leader = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                    cwd=self.cwd,
                    process_group=0,
                )
            except OSError as e:
                raise EmulatorError(f"cannot run {self.argv[0]} for {self.name}: {e}") from e
        if self.stop_with_parent:
            self._start_watchdog(self._leader.pid)

    def exit_code(self) -> int | None:
        """The leader's exit status once it has ended, else None."""
        return self._leader.poll() if self._leader is not None else None

    def is_running(self) -> bool:
        return self._leader is not None and self._leader.poll() is None

    def stop(self, grace_seconds: float = 10.0) -> None:
        """Stop every process of the group: SIGTERM, then SIGKILL after ``grace_seconds``."""
        if self._leader is None:
            return
        stop_process_group(self._leader.pid, grace_seconds, reap=self._reap)
        self._reap()
        self._leader = self._watchdog = None

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log_path, lines)

    def _reap(self) -> None:
        """Collect the exit status of the children this object started, so none is left a zombie."""
        for child in (self._leader, self._watchdog):
            if child is not None:
                child.poll()

    def _start_watchdog(self, group_id: int) -> None:
        with self.log_path.open("ab") as log:
            try:
                self._watchdog = subprocess.Popen(
                    [sys.executable, "-m", "hedera_history.localstack.watchdog"],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    process_group=group_id,
                )
            except OSError as e:
                stop_process_group(group_id, 5.0, reap=self._reap)
                raise EmulatorError(f"cannot start the watchdog for {self.name}: {e}") from e


def wait_until_ready(
    process: ServiceProcess,
    is_ready: Callable[[], bool],
    timeout_seconds: float,
    poll_seconds: float = 0.25,
) -> float:
    """Poll ``is_ready`` until it returns True; returns the seconds waited.

    Raises :class:`EmulatorError` with the tail of the log as soon as the process exits, or when
    ``timeout_seconds`` pass, so a broken start-up fails fast instead of hanging.
    """
    started = time.monotonic()
    deadline = started + timeout_seconds
    while True:
        code = process.exit_code()
        if code is not None:
            raise EmulatorError(
                f"{process.name} exited with status {code} before it was ready; "
                f"log {process.log_path} ends with:\n{process.log_tail()}"
            )
        if is_ready():
            return time.monotonic() - started
        if time.monotonic() >= deadline:
            raise EmulatorError(
                f"{process.name} was not ready after {timeout_seconds:.0f} s; "
                f"log {process.log_path} ends with:\n{process.log_tail()}"
            )
        time.sleep(poll_seconds)


def stop_process_group(group_id: int, grace_seconds: float = 10.0, reap: Callable[[], object] | None = None) -> None:
    """Stop every process in group ``group_id``: SIGTERM, then SIGKILL after ``grace_seconds``.

    Works from any process (e.g. ``stack down`` reading a recorded pid). ``reap`` collects the exit
    status of members the caller is the parent of, so they do not linger as zombies.
    """
    for sig, wait_seconds in ((signal.SIGTERM, grace_seconds), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(group_id, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_seconds
        while time.monotonic() < deadline:
            if reap is not None:
                reap()
            if not process_group_alive(group_id):
                return
            time.sleep(0.05)
    raise EmulatorError(f"process group {group_id} is still running after SIGKILL")


def process_group_alive(group_id: int) -> bool:
    """True while a process of the group that has not exited yet is left."""
    if _PROC.is_dir():
        return bool(process_group_members(group_id))
    try:
        os.killpg(group_id, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_group_members(group_id: int) -> list[int]:
    """Pids of the live (not zombie) processes in group ``group_id``; reads /proc, so on a system
    without it the list is always empty."""
    members: list[int] = []
    if not _PROC.is_dir():
        return members
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name in parentheses may hold spaces; the fields after it are fixed.
        fields = stat.rsplit(")", 1)[-1].split()
        state, process_group = fields[0], int(fields[2])
        if process_group == group_id and state not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def group_listens_on(group_id: int, port: int) -> bool | None:
    """Whether a process of the group holds the socket listening on ``port``; None when this
    cannot be told (no /proc)."""
    inodes = listening_socket_inodes(port)
    if inodes is None:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for pid in process_group_members(group_id):
        try:
            descriptors = list((_PROC / str(pid) / "fd").iterdir())
        except OSError:
            continue
        for descriptor in descriptors:
            try:
                if os.readlink(descriptor) in wanted:
                    return True
            except OSError:
                continue
    return False
