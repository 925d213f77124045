from __future__ import annotations

import os
import socket

from hedera_history.localstack.ports import accepts_connections, free_port, listening_socket_inodes
from hedera_history.localstack.processes import group_listens_on


def test_a_free_port_can_be_bound_on_loopback() -> None:
    port = free_port()
    assert 1024 < port < 65536
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
    assert not accepts_connections("127.0.0.1", port, timeout=0.5)


def test_a_listener_is_seen_and_attributed_to_its_process_group() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        assert accepts_connections("127.0.0.1", port)
        assert listening_socket_inodes(port) == {os.fstat(listener.fileno()).st_ino}
        assert group_listens_on(os.getpgrp(), port) is True

    assert listening_socket_inodes(port) == set()
    assert group_listens_on(os.getpgrp(), port) is False
