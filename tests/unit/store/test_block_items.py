"""Items cells: every version's signed bytes (and the item list) cut at item boundaries, joined
back exactly, each cell's items readable with cell 0 alone."""

from __future__ import annotations

import random
import re

import pytest
from hedera_history.formats.parsed_files import RecordFile, RecordItem, SidecarMetadata
from hedera_history.formats.record_v2 import write_record_v2
from hedera_history.formats.record_v5 import write_record_v5
from hedera_history.formats.record_v6 import write_record_v6
from hedera_history.store import block_items as b
from hedera_history.store import schema as s
from hedera_history.store.decode import BlockFile
from hedera_history.store.originals import encode_item_list

HASH = bytes(range(48))


def items(count: int, seed: int = 1) -> list[RecordItem]:
    rng = random.Random(seed)
    return [
        RecordItem(rng.randbytes(rng.randint(0, 600)), rng.randbytes(rng.randint(1, 900)), 1_000 + i)
        for i in range(count)
    ]


def files(listed: list[RecordItem]) -> dict[str, tuple[bytes, bytes]]:
    v6 = write_record_v6(
        listed,
        hapi_version=(0, 50, 0),
        start_running_hash=HASH,
        end_running_hash=HASH,
        block_number=7,
        sidecars=(SidecarMetadata(1, (1,), HASH),),
    )
    v5 = write_record_v5(listed, hapi_version=(0, 20, 0), start_running_hash=HASH, end_running_hash=HASH)
    v2 = write_record_v2(listed, previous_file_hash=HASH, version=2, header_hapi_int=2)
    v1 = write_record_v2(listed, previous_file_hash=HASH, version=1, header_hapi_int=1)
    record = RecordFile.__new__(RecordFile)
    object.__setattr__(record, "items", tuple(listed))
    return {
        "v6": (s.ITEMS_FILE_KIND, v6),
        "v5": (s.ITEMS_FILE_KIND, v5),
        "v2": (s.ITEMS_FILE_KIND, v2),
        "v1": (s.ITEMS_FILE_KIND, v1),
        "list": (s.ITEMS_LIST_KIND, encode_item_list(record)),
    }


@pytest.mark.parametrize("name", ["v6", "v5", "v2", "v1", "list"])
@pytest.mark.parametrize("count", [0, 1, 700])
def test_cells_join_to_the_signed_bytes_and_each_reads_its_own_items(name: str, count: int) -> None:
    listed = items(count)
    kind, data = files(listed)[name]
    cells, placed = b.items_cells(kind, data)

    assert b"".join(cell.data for cell in cells) == data
    assert [cell.number for cell in cells] == list(range(len(cells)))
    assert len(placed) == count
    if count == 700:
        assert len(cells) > 8
        assert all(len(cell.data) < b.ITEMS_CELL_SIZE + 2_000 for cell in cells)
    header = cells[0].data
    files_cells = b.FileCells(kind.decode(), header, {c.number: (c.first_index, c.data) for c in cells[1:]})
    for index, (number, offset) in enumerate(placed):
        first, found = files_cells.items(number, "test")
        assert first + offset == index
        assert found[offset] == (listed[index].transaction_bytes, listed[index].record_bytes)
    if name == "list":  # the others parse their items whole (random bytes here)
        assert b.file_item_bytes(BlockFile(kind.decode(), data), "test") == tuple(
            (i.transaction_bytes, i.record_bytes) for i in listed
        )


def test_bytes_whose_items_cannot_be_walked_stay_whole_in_cell_0() -> None:
    data = (6).to_bytes(4, "big") + b"\x1a\xff"  # an item field running past the end
    cells, placed = b.items_cells(s.ITEMS_FILE_KIND, data)
    assert [(c.number, c.first_index, c.data) for c in cells] == [(0, 0, data)]
    assert placed == ()


def test_the_cells_filter_reads_cell_0_and_the_cells_named_of_each_part() -> None:

    regex = b.cells_regex([(0, 3), (1, 12)])
    assert re.fullmatch(regex, b"file/000003/00000100")
    assert re.fullmatch(regex, b"file/000000/00000000")
    assert re.fullmatch(regex, b"part/1/items/000012/00000100")
    assert re.fullmatch(regex, b"part/1/file/000000/00000000")
    assert not re.fullmatch(regex, b"file/000012/00000100")
    assert not re.fullmatch(regex, b"part/1/file/000003/00000100")
