"""Free loopback ports, a plain TCP reachability check, and which sockets listen on a port."""

from __future__ import annotations

import socket
from pathlib import Path

LOOPBACK = "127.0.0.1"

_SOCKET_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_TCP_LISTEN = "0A"


def free_port(host: str = LOOPBACK) -> int:
    """A port on ``host`` that nothing listens on right now.

    The kernel picks it from the ephemeral range, so concurrent callers (other test workers, other
    engineers' runs) get different ports; a process may still grab it before the emulator binds,
    which the emulator classes handle by retrying on a new port.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def accepts_connections(host: str, port: int, timeout: float = 1.0) -> bool:
    """True when a TCP connection to ``host:port`` succeeds within ``timeout`` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def listening_socket_inodes(port: int) -> set[int] | None:
    """Inodes of the TCP sockets listening on ``port`` (any address, IPv4 or IPv6: a JVM binds
    127.0.0.1 through an IPv6 socket); None where /proc/net is not available."""
    if not any(table.exists() for table in _SOCKET_TABLES):
        return None
    inodes: set[int] = set()
    for table in _SOCKET_TABLES:
        try:
            rows = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            # fields: slot, local "ADDR:PORT" (hex), remote, state, queues, timer, retransmits, uid,
            # timeout, inode
            if len(fields) > 9 and fields[3] == _TCP_LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(int(fields[9]))
    return inodes
