"""What every ObjectSink must do, checked the same way on a directory, GCS and S3.

``read(full name)`` reads an object back below the sink's root with the store's own client.
"""

from __future__ import annotations

from collections.abc import Callable

from hedera_history.sources.base import ObjectSink

NAME = "record0.0.3/2024-01-01T00_00_00.000000000Z.rcd.gz"
NESTED = "record0.0.3/sidecar/2024-01-01T00_00_00.000000000Z_01.rcd.gz"


def check_sink_contract(sink: ObjectSink, read: Callable[[str], bytes], *, refuses_taken_names: bool = True) -> None:
    """``refuses_taken_names``: False for a store that ignores the create precondition (the GCS
    emulator); the request itself is checked elsewhere."""
    # write creates or replaces, at any depth, with the exact bytes.
    sink.write(NAME, b"first")
    sink.write(NAME, b"second")
    assert read(NAME) == b"second"
    sink.write(NESTED, b"")
    assert read(NESTED) == b""

    # create: only a new name, and a taken one is left as it was.
    assert sink.create("quarantine/copy.rcd.gz", b"original") is True
    assert read("quarantine/copy.rcd.gz") == b"original"
    if refuses_taken_names:
        assert sink.create("quarantine/copy.rcd.gz", b"replacement") is False
        assert read("quarantine/copy.rcd.gz") == b"original"
        assert sink.create(NAME, b"third") is False
        assert read(NAME) == b"second"
