from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.formats.dispatch import parse_record_file, parse_sidecar_file
from hedera_history.formats.parsed_files import RecordItem, SidecarType
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.block_items import file_item_bytes
from hedera_history.store.chaintime import cell_timestamp_micros
from hedera_history.store.contract_index import contract_result_key
from hedera_history.store.decode import decode_items_row
from hedera_history.store.encoding import decode_value
from hedera_history.store.entity_index import entity_change_key, is_entity_index_key
from hedera_history.store.gateway import StoredCell, StoredRow
from hedera_history.store.keys import consensus_from_key, hex16, row_key_for_account_history, row_key_for_transaction
from hedera_history.store.model import BlockRows, Row
from hedera_history.store.row_codec import decode_row_message, encode_row_value, message_key
from hedera_history.store.rows import block_to_rows
from hedera_history.store.values import Position, decode_completion, decode_id_entry, decode_position
from hedera_history.verify.stream import verify_stream

from .builders import BASE_NS, NS, bytecode_sidecar_record, make_block, make_sidecar, transfer_tx

SETTINGS = Settings()


def sample_block() -> VerifiedBlock:
    txs = [transfer_tx(BASE_NS + i * NS, 1001 + i % 2, 2001 + i) for i in range(4)]
    sidecar = make_sidecar(
        1,
        [
            (
                txs[1].consensus_ns,
                SidecarType.CONTRACT_BYTECODE,
                bytecode_sidecar_record(txs[1].consensus_ns, 1002),
            )
        ],
    )
    return make_block(42, txs, sidecars=[sidecar])


def by_table(rows: BlockRows) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = {}
    for row in rows.rows:
        grouped.setdefault(row.table, []).append(row)
    return grouped


def stored(row: Row) -> StoredRow:
    return StoredRow(row.key, tuple(StoredCell(c.family, c.qualifier, c.value, c.timestamp_micros) for c in row.cells))


def test_rows_are_deterministic() -> None:
    block = sample_block()
    first, second = block_to_rows(block, SETTINGS), block_to_rows(block, SETTINGS)
    assert first == second
    assert [encode_row_value(r) for r in first.rows] == [encode_row_value(r) for r in second.rows]


def test_every_cell_carries_the_block_time_in_milliseconds() -> None:
    rows = block_to_rows(sample_block(), SETTINGS)
    expected = cell_timestamp_micros(BASE_NS)
    assert rows.block_time_ns == BASE_NS
    stamps = {c.timestamp_micros for r in (*rows.rows, rows.completion) for c in r.cells}
    assert stamps == {expected}
    assert expected % 1000 == 0


def test_completion_is_apart_and_last() -> None:
    rows = block_to_rows(sample_block(), SETTINGS)
    assert all(c.family != s.BLOCK_COMPLETION_FAMILY for r in rows.rows for c in r.cells)
    assert rows.completion.table == s.BLOCKS and rows.completion.key == b"000000000000002a"
    (cell,) = rows.completion.cells
    assert decode_completion(decode_value(cell.value)).item_count == 4


def test_every_history_table_gets_its_rows() -> None:
    block = sample_block()
    tables = by_table(block_to_rows(block, SETTINGS))
    assert set(tables) == set(s.HISTORY_TABLES)
    assert sorted(r.key for r in tables[s.TRANSACTIONS]) == sorted(
        row_key_for_transaction(BASE_NS + i * NS) for i in range(4)
    )
    assert len(tables[s.TX_BY_HASH]) == 4 and len(tables[s.TX_BY_ID]) == 4
    (sidecar_row,) = tables[s.SIDECARS]
    assert sidecar_row.key == row_key_for_transaction(BASE_NS + NS)
    assert {c.qualifier for c in sidecar_row.cells} == {b"block", b"3/01/00000000"}
    history_keys = {r.key for r in tables[s.ACCOUNT_HISTORY]}
    assert row_key_for_account_history("0.0.1001", BASE_NS) in history_keys
    assert row_key_for_account_history("0.0.2001", BASE_NS) in history_keys
    assert row_key_for_account_history("0.0.98", BASE_NS + 3 * NS) in history_keys
    signatures = [c.qualifier for c in tables[s.BLOCKS][0].cells if c.family == s.BLOCK_SIGNATURE_FAMILY]
    assert signatures == [b"0.0.3", b"0.0.4", b"0.0.5"]
    items = decode_items_row(stored(tables[s.ITEMS][0]))
    assert items.kind == "file"


def test_rows_travel_as_messages_unchanged() -> None:
    rows = block_to_rows(sample_block(), SETTINGS)
    for row in (*rows.rows, rows.completion):
        assert decode_row_message(message_key(row), encode_row_value(row)) == row


def test_sidecars_can_be_left_out() -> None:
    rows = block_to_rows(sample_block(), SETTINGS.with_(sidecars_enabled=False))
    assert s.SIDECARS not in by_table(rows)
    assert decode_completion(decode_value(rows.completion.cells[0].value)).sidecar_record_count == 0


def test_an_undecodable_record_keeps_its_transaction_row_only() -> None:
    block = sample_block()
    broken = RecordItem(b"\xff\xff", b"\xff\xff\xff", BASE_NS + 10 * NS)
    record = replace(block.record, items=(*block.record.items, broken))
    rows = block_to_rows(replace(block, record=record), SETTINGS)
    tables = by_table(rows)
    assert row_key_for_transaction(BASE_NS + 10 * NS) in {r.key for r in tables[s.TRANSACTIONS]}
    assert len(tables[s.TX_BY_HASH]) == 4
    assert decode_items_row(stored(tables[s.ITEMS][0])).kind == "items"  # rebuilt file no longer hashes
    assert rows.undecodable_records == 1


def test_undecodable_records_are_counted_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    block = sample_block()
    broken = [RecordItem(b"\xff\xff", b"\xff\xff\xff", BASE_NS + (10 + i) * NS) for i in range(2)]
    record = replace(block.record, items=(*block.record.items, *broken))
    with caplog.at_level("WARNING", logger="hedera_history.store.rows"):
        rows = block_to_rows(replace(block, record=record), SETTINGS)
    assert rows.undecodable_records == 2
    (logged,) = [r for r in caplog.records if r.name == "hedera_history.store.rows"]
    assert logged.__dict__["fields"] == {"block": 42, "first_index": 0, "records": 2}
    assert block_to_rows(block, SETTINGS).undecodable_records == 0


def test_transaction_rows_point_into_the_items_row() -> None:
    block = sample_block()
    tables = by_table(block_to_rows(block, SETTINGS))
    for index, row in enumerate(sorted(tables[s.TRANSACTIONS], key=lambda r: consensus_from_key(r.key))):
        assert [(c.family, c.qualifier) for c in row.cells] == [(s.TRANSACTION_FAMILY, s.Q_POSITION)]
        # A small block: every item stands in cell 0.
        assert decode_position(decode_value(row.cells[0].value)) == Position(42, index, 0)
    items = file_item_bytes(decode_items_row(stored(tables[s.ITEMS][0])), "block 42")
    assert items == tuple((i.transaction_bytes, i.record_bytes) for i in block.record.items)
    assert decode_completion(decode_value(block_to_rows(block, SETTINGS).completion.cells[0].value)).layout == 3


def test_parent_and_child_share_one_tx_id_row() -> None:
    parent = transfer_tx(BASE_NS, 1001, 2001, valid_start_ns=BASE_NS - NS)
    child = transfer_tx(BASE_NS + 1, 1001, 2002, valid_start_ns=BASE_NS - NS)
    record = child.record
    record.transactionID.nonce = 1
    child = replace(child, record_bytes=record.SerializeToString())
    tables = by_table(block_to_rows(make_block(1, [parent, child]), SETTINGS))
    (row,) = tables[s.TX_BY_ID]
    assert row.key == b"0.0.1001/" + hex16(BASE_NS - NS)
    nonces = [decode_id_entry(decode_value(c.value)).nonce for c in row.cells]
    assert [c.qualifier for c in row.cells] == [hex16(BASE_NS), hex16(BASE_NS + 1)] and nonces == [0, 1]


# ---- real files --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_blocks(hedera_data: Path) -> list[VerifiedBlock]:
    book = parse_address_book((hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes())
    blocks = [r.report.block for r in verify_stream(find_local_periods(hedera_data / "v6"), book)]
    assert all(b is not None for b in blocks)
    return [b for b in blocks if b is not None]


def test_real_v6_block_rows(real_blocks: list[VerifiedBlock], hedera_data: Path) -> None:
    block = real_blocks[1]
    rows = block_to_rows(block, SETTINGS)
    tables = by_table(rows)
    assert rows.block_number == 6
    assert sorted(r.key for r in tables[s.TRANSACTIONS]) == sorted(
        row_key_for_transaction(ns) for ns in (1657701971304284003, 1657701971304284004)
    )
    (id_row,) = tables[s.TX_BY_ID]
    assert id_row.key == b"0.0.2/" + hex16(1657701910000000144)
    assert len(id_row.cells) == 2  # the contract call and its child (nonce 1)
    history = [r.key for r in tables[s.ACCOUNT_HISTORY] if not is_entity_index_key(r.key)]
    assert {key.split(b"/")[0] for key in history} == {b"0.0.2", b"0.0.98", b"0.0.1002", b"0.0.1003"}
    # The child create (nonce 1) made contract 0.0.1003: the entity index has its creation; the
    # contract index has both results (the call's and the create's), neither with logs.
    index = sorted(r.key for r in tables[s.ACCOUNT_HISTORY] if is_entity_index_key(r.key))
    results = [contract_result_key(ns) for ns in (1657701971304284003, 1657701971304284004)]
    assert index == sorted([entity_change_key("0.0.1003", 1657701971304284004), *results])
    assert len(tables[s.SIDECARS]) == 2
    items = decode_items_row(stored(tables[s.ITEMS][0]))
    path = hedera_data / "v6/recordstreams/record0.0.3/2022-07-13T08_46_11.304284003Z.rcd.gz"
    assert items.kind == "file" and items.data == gzip.decompress(path.read_bytes())


def test_rows_do_not_depend_on_which_node_copy_was_read(real_blocks: list[VerifiedBlock], hedera_data: Path) -> None:
    block = real_blocks[1]
    folder = hedera_data / "v6/recordstreams"
    name = "2022-07-13T08_46_11.304284003Z"
    sidecar_name = f"{name}_01.rcd.gz"
    copies = []
    for node in ("0.0.4", "0.0.6"):
        record_bytes = (folder / f"record{node}" / f"{name}.rcd.gz").read_bytes()
        sidecar_bytes = (folder / f"record{node}" / "sidecar" / sidecar_name).read_bytes()
        record = parse_record_file(record_bytes, f"gs://bucket/recordstreams/record{node}/{name}.rcd.gz")
        sidecar = parse_sidecar_file(sidecar_bytes, sidecar_name)
        copies.append(replace(block, record=record, sidecars=(sidecar,)))
    assert copies[0].record.size != block.record.size or copies[0].record.name != block.record.name
    expected = block_to_rows(block, SETTINGS)
    assert all(block_to_rows(copy, SETTINGS) == expected for copy in copies)
