"""CPU seconds of processes and process groups, read from /proc (Linux; 0 where it is not there)."""

from __future__ import annotations

import os
from pathlib import Path

from hedera_history.localstack.processes import process_group_members
from hedera_history.localstack.stack_state import StackState


def cpu_seconds(pid: int) -> float:
    """CPU of a process and of its children it has waited for (0 when it has gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def group_cpu_seconds(group_id: int) -> float:
    """CPU of the live processes of a process group (an emulator, a function and its workers)."""
    return sum(cpu_seconds(pid) for pid in process_group_members(group_id))


def tree_cpu_seconds(root: int, leave_out: int | None) -> float:
    """CPU of ``root`` and every live process below it, except ``leave_out`` and what is below it."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            parents.setdefault(parent, []).append(int(entry.name))
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid == leave_out:
            continue
        total += cpu_seconds(pid)
        todo.extend(parents.get(pid, ()))
    return total


def stack_cpu(state: StackState) -> dict[str, float]:
    """CPU seconds so far of each emulator and function (its whole process group) and of this
    process (the upload threads and the bridges)."""
    found = {record.name: group_cpu_seconds(record.pid) for record in (*state.emulators, *state.functions)}
    if state.bridge is not None:
        found["bridges"] = group_cpu_seconds(state.bridge.pid)
    own = os.times()
    found["bench: uploads, bridges"] = own.user + own.system
    return found
