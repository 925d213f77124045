"""What every ObjectSource must do, checked the same way on a directory, GCS and S3.

``OBJECTS`` is written below ``ROOT`` (plus one object outside it); the source under test is
opened at ``ROOT`` and must behave as :func:`check_source_contract` says.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hedera_history.errors import ObjectNotFoundError, ObjectTooLargeError
from hedera_history.sources.base import ObjectSource

ROOT = "streams/"
OUTSIDE = "elsewhere/record0.0.3/2024-01-01T00_00_00.000000000Z.rcd_sig"

T0 = "2024-01-01T00_00_00.000000000Z"
T1 = "2024-01-01T00_00_02.000000000Z"

OBJECTS: dict[str, bytes] = {
    f"record0.0.3/{T0}.rcd.gz": b"record zero" * 100,
    f"record0.0.3/{T0}.rcd_sig": b"\x06signature",
    f"record0.0.3/{T1}.rcd.gz": b"record one",
    f"record0.0.3/sidecar/{T0}_01.rcd.gz": b"sidecar",
    f"record0.0.4/{T0}.rcd_sig": b"\x06other signature",
    "record0.0.4/empty.rcd_sig": b"",
    f"record0.0.10/sidecar/{T0}_01.rcd.gz": b"deep",
    "readme.txt": b"top level",
}


def load(put: Callable[[str, bytes], None]) -> None:
    """Write ``OBJECTS`` below ``ROOT`` and one object outside it with ``put(full name, bytes)``."""
    for name, data in OBJECTS.items():
        put(ROOT + name, data)
    put(OUTSIDE, b"not under the root")


def names(
    source: ObjectSource, prefix: str = "", delimiter: str | None = None, start_after: str | None = None
) -> list[str]:
    return [info.name for info in source.list(prefix, delimiter=delimiter, start_after=start_after)]


def check_source_contract(source: ObjectSource) -> None:
    # Full listing: every object under the root, relative names, in name order.
    everything = list(source.list())
    assert [o.name for o in everything] == sorted(OBJECTS)
    for info in everything:
        assert info.size == len(OBJECTS[info.name])
        assert info.version
        assert info.updated is not None

    # Prefixes are plain string prefixes, not only folders.
    assert names(source, "record0.0.3/") == sorted(n for n in OBJECTS if n.startswith("record0.0.3/"))
    assert names(source, f"record0.0.3/{T0}") == [f"record0.0.3/{T0}.rcd.gz", f"record0.0.3/{T0}.rcd_sig"]
    assert names(source, "record0.0.1") == [f"record0.0.10/sidecar/{T0}_01.rcd.gz"]
    assert names(source, "nothing/") == []

    # With a delimiter, only what sits directly under the prefix.
    assert names(source, "record0.0.3/", "/") == [
        f"record0.0.3/{T0}.rcd.gz",
        f"record0.0.3/{T0}.rcd_sig",
        f"record0.0.3/{T1}.rcd.gz",
    ]
    assert names(source, "", "/") == ["readme.txt"]
    assert names(source, "record0.0.10/", "/") == []

    # After a name (exclusive, whether or not the name exists), with or without a delimiter.
    assert names(source, "record0.0.3/", "/", start_after=f"record0.0.3/{T0}.rcd.gz") == [
        f"record0.0.3/{T0}.rcd_sig",
        f"record0.0.3/{T1}.rcd.gz",
    ]
    assert names(source, "record0.0.3/", "/", start_after=f"record0.0.3/{T0}~") == [f"record0.0.3/{T1}.rcd.gz"]
    assert names(source, "record0.0.3/", start_after=f"record0.0.3/{T1}.rcd.gz") == [
        f"record0.0.3/sidecar/{T0}_01.rcd.gz"
    ]
    assert names(source, "record0.0.4/", "/", start_after="record0.0.4/empty.rcd_sig") == []
    assert names(source, "record0.0.4/", "/", start_after="record0.0.3/") == sorted(
        n for n in OBJECTS if n.startswith("record0.0.4/")
    )

    # Folders under a prefix (node discovery); a folder exists when it holds an object.
    assert source.list_prefixes() == ["record0.0.10/", "record0.0.3/", "record0.0.4/"]
    assert source.list_prefixes("record0.0.3/") == ["record0.0.3/sidecar/"]
    assert source.list_prefixes("record0.0.1") == ["record0.0.10/"]
    assert source.list_prefixes("record0.0.4/") == []
    assert source.list_prefixes("nothing/") == []

    # Reads: exact bytes, an empty object, the size limit, a missing object.
    name = f"record0.0.3/{T0}.rcd.gz"
    assert source.read(name) == OBJECTS[name]
    assert source.read(name, max_bytes=len(OBJECTS[name])) == OBJECTS[name]
    with pytest.raises(ObjectTooLargeError):
        source.read(name, max_bytes=len(OBJECTS[name]) - 1)
    assert source.read("record0.0.4/empty.rcd_sig") == b""
    with pytest.raises(ObjectNotFoundError):
        source.read("record0.0.3/missing.rcd.gz")
    with pytest.raises(ObjectNotFoundError):
        source.read("record0.0.3/sidecar")  # a folder is not an object

    assert source.exists(name)
    assert not source.exists("record0.0.3/missing.rcd.gz")
    assert not source.exists("record0.0.3")
