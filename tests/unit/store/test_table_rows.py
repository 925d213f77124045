"""The rows of a row set's tables, compiled and in Python: the same rows, cell for cell."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from hedera_history import speedups
from hedera_history.store.model import Cell, Row
from hedera_history.store.rows import _CLASSES, python_table_rows

STAMP = 1_700_000_000_000_000

ROWS: dict[bytes, dict[tuple[str, bytes], bytes]] = {
    b"b/2": {("t", b"r"): b"\x00two", ("t", b"p"): b"\x00pos", ("d", b"z"): b"\x01x"},
    b"a": {("t", b"p"): b"\x00one"},
    b"b/10": {},
    b"": {("t", b""): b""},
}
SINGLE: dict[bytes, bytes] = {b"0.0.98/ff": b"\x00p1", b"0.0.3/00": b"\x00p2", b"0.0.3/0": b"\x00p3"}


def _both(rows: dict[bytes, Any], single: tuple[str, bytes] | None) -> tuple[list[Row], list[Row]]:
    assert speedups.table_rows is not None, "the compiled core did not build"
    compiled: list[Row] = [Row("first", b"k", ())]
    python: list[Row] = [Row("first", b"k", ())]
    speedups.table_rows(_CLASSES, "table", rows, STAMP, single, compiled)
    python_table_rows(_CLASSES, "table", rows, STAMP, single, python)
    return compiled, python


def test_rows_in_key_order_with_cells_in_family_and_qualifier_order() -> None:
    compiled, python = _both(ROWS, None)
    assert compiled == python
    assert [row.key for row in compiled[1:]] == [b"", b"a", b"b/10", b"b/2"]
    assert compiled[4].cells == (
        Cell("d", b"z", b"\x01x", STAMP),
        Cell("t", b"p", b"\x00pos", STAMP),
        Cell("t", b"r", b"\x00two", STAMP),
    )
    assert all(type(row) is Row and all(type(cell) is Cell for cell in row.cells) for row in compiled)
    # They hold str, bytes and ints only: the collector never walks them.
    assert not any(gc.is_tracked(row) or gc.is_tracked(row.cells) for row in compiled[1:])


def test_rows_of_one_cell_each_take_the_family_and_qualifier_given() -> None:
    compiled, python = _both(SINGLE, ("a", b"b"))
    assert compiled == python
    assert [(row.key, row.cells) for row in compiled[1:]] == [
        (b"0.0.3/0", (Cell("a", b"b", b"\x00p3", STAMP),)),
        (b"0.0.3/00", (Cell("a", b"b", b"\x00p2", STAMP),)),
        (b"0.0.98/ff", (Cell("a", b"b", b"\x00p1", STAMP),)),
    ]


@pytest.mark.parametrize(
    ("rows", "single"),
    [
        ({"not bytes": {("t", b"q"): b"v"}}, None),
        ({b"k": {("t", "not bytes"): b"v"}}, None),
        ({b"k": {("t", b"q"): "not bytes"}}, None),
        ({b"k": [("t", b"q")]}, None),
        ({b"k": {("t", b"q"): b"v"}}, ("a", b"b")),
    ],
)
def test_values_of_other_types_are_refused(rows: dict[object, object], single: tuple[str, bytes] | None) -> None:
    assert speedups.table_rows is not None
    out: list[Row] = []
    with pytest.raises(TypeError):
        speedups.table_rows(_CLASSES, "table", rows, STAMP, single, out)  # type: ignore[arg-type]
