from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hedera_history.config import Settings
from hedera_history.errors import RowDecodeError
from hedera_history.formats.parsed_files import RecordItem, SidecarType
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.keys import (
    plain_row_key_for_transaction,
    row_key_for_account_history,
    row_key_for_block,
    row_key_for_transaction,
    row_key_for_tx_hash,
)
from hedera_history.store.reader import KEY_CHUNK, MAX_BLOCK_RANGE, HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.values import (
    CompletionValue,
    decode_entry_pointer,
    decode_hash_entry,
    decode_id_entry,
    encode_completion,
    encode_hash_entry,
    encode_id_entry,
    encode_u64,
    pack_position,
)
from hedera_history.store.writer import BlockWriter

from .builders import BASE_NS, NS, bytecode_sidecar_record, make_block, make_sidecar, transfer_tx
from .fakes import MemoryGateway

SETTINGS = Settings()


def block_with(number: int, count: int, payer: int = 1001, *, sidecar: bool = False):
    start = BASE_NS + number * 100 * NS
    txs = [transfer_tx(start + i * 1000, payer, 5000 + number) for i in range(count)]
    sidecars = []
    if sidecar:
        raw = bytecode_sidecar_record(txs[0].consensus_ns, 1002)
        sidecars = [make_sidecar(1, [(txs[0].consensus_ns, SidecarType.CONTRACT_BYTECODE, raw)])]
    return make_block(number, txs, sidecars=sidecars), txs


def store(blocks) -> tuple[MemoryGateway, HistoryReader]:
    gateway = MemoryGateway()
    BlockWriter(gateway, SETTINGS).write_blocks(blocks)
    return gateway, HistoryReader(gateway)


def test_a_block_without_completion_is_invisible_everywhere() -> None:
    (done, _), (half, half_txs) = block_with(1, 3, sidecar=True), block_with(2, 3, sidecar=True)
    gateway, reader = store([done])
    for row in block_to_rows(half, SETTINGS).rows:  # every row of block 2 lands, its completion does not
        gateway.mutate_rows(row.table, [row])
    tx = half_txs[0]
    valid_start = tx.record.transactionID.transactionValidStart
    valid_start_ns = valid_start.seconds * NS + valid_start.nanos
    assert reader.get_block(2) is None
    assert reader.block_time(2) is None
    assert reader.block_file(2) is None
    assert reader.block_transactions(2) == ([], [])
    assert reader.get_blocks(0, 10) == [1]
    assert reader.transaction(tx.consensus_ns) is None
    assert reader.transaction_by_hash(tx.record.transactionHash) is None
    assert reader.transactions_by_id("0.0.1001", valid_start_ns) == []
    assert reader.transaction_statuses([tx.record.transactionHash]).statuses == {tx.record.transactionHash: None}
    assert [e.block_number for e in reader.account_history("0.0.1001").entries] == [1, 1, 1]
    assert reader.sidecar_records(tx.consensus_ns) == []

    gateway.mutate_rows(s.BLOCKS, [block_to_rows(half, SETTINGS).completion])
    assert reader.get_block(2) is not None
    assert reader.transaction(tx.consensus_ns) is not None
    assert len(reader.sidecar_records(tx.consensus_ns)) == 1
    assert [e.block_number for e in reader.account_history("0.0.1001").entries] == [2, 2, 2, 1, 1, 1]


def test_first_available_block_skips_incomplete_ones() -> None:
    gateway, reader = store([])
    assert reader.first_available_block() is None
    early, _ = block_with(3, 1)
    for row in block_to_rows(early, SETTINGS).rows:
        gateway.mutate_rows(row.table, [row])
    BlockWriter(gateway, SETTINGS).write_blocks([block_with(7, 1)[0]])
    assert reader.first_available_block() == 7


def test_block_reads() -> None:
    blocks = [block_with(n, 2)[0] for n in (4, 5, 9)]
    _, reader = store(blocks)
    block = reader.get_block(5)
    assert block is not None and block.number == 5 and block.item_count == 2
    assert [sig.node_account for sig in block.signatures] == ["0.0.3", "0.0.4", "0.0.5"]
    assert reader.block_time(9) == BASE_NS + 900 * NS
    transactions, errors = reader.block_transactions(5)
    assert [t.index for t in transactions] == [0, 1] and errors == []
    assert reader.get_blocks(5) == [5, 9]
    assert reader.get_blocks(4, 5) == [4, 5]
    assert reader.get_blocks(4, limit=1) == [4]
    assert reader.get_blocks(10, 3) == []
    file = reader.block_file(4)
    assert file is not None and file.kind == "file"


def test_get_blocks_range_is_capped() -> None:
    _, reader = store([block_with(MAX_BLOCK_RANGE + 5, 1)[0]])
    assert reader.get_blocks(0, MAX_BLOCK_RANGE + 10) == []
    assert reader.get_blocks(10, MAX_BLOCK_RANGE + 10) == [MAX_BLOCK_RANGE + 5]


def test_duplicates_answer_with_the_first_result() -> None:
    original = transfer_tx(BASE_NS, 1001, 1002)
    duplicate_record = original.record
    duplicate_record.consensusTimestamp.nanos += 7
    duplicate_record.receipt.status = 11  # DUPLICATE_TRANSACTION
    duplicate = replace(original, consensus_ns=BASE_NS + 7, record_bytes=duplicate_record.SerializeToString())
    _, reader = store([make_block(1, [original, duplicate])])
    found = reader.transaction_by_hash(original.record.transactionHash)
    assert found is not None and found.consensus_ns == BASE_NS
    results = reader.transactions_by_id("0.0.1001", BASE_NS - 5 * NS)
    assert [(r.consensus_ns, r.status) for r in results] == [(BASE_NS, 22), (BASE_NS + 7, 11)]


def test_statuses_are_read_in_chunks() -> None:
    block, txs = block_with(1, 3)
    gateway, reader = store([block])
    hashes = [t.record.transactionHash for t in txs] + [bytes([i % 256, i // 256]) * 24 for i in range(KEY_CHUNK * 2)]
    answer = reader.transaction_statuses(hashes)
    found = [answer.statuses[t.record.transactionHash] for t in txs]
    assert [r.consensus_ns if r else None for r in found] == [t.consensus_ns for t in txs]
    assert sum(v is None for v in answer.statuses.values()) == KEY_CHUNK * 2
    queries = [q for table, q in gateway.read_queries if table == s.TX_BY_HASH]
    assert len(queries) >= 2 and all(len(q.ranges) <= KEY_CHUNK for q in queries)


def test_transactions_are_read_from_the_items_row_they_point_into() -> None:
    blocks = [block_with(n, 4)[0] for n in (1, 2)]
    gateway, _ = store(blocks)
    reader = HistoryReader(gateway)
    item = blocks[1].record.items[2]
    found = reader.transaction(item.consensus_ns)
    assert found is not None and (found.block_number, found.index) == (2, 2)
    assert (found.record_bytes, found.transaction_bytes) == (item.record_bytes, item.transaction_bytes)
    assert not found.in_items
    # The pointer, the block's completion (remembered after), and the items row.
    assert [table for table, _ in gateway.read_queries] == [s.TRANSACTIONS, s.BLOCKS, s.ITEMS]
    wanted = [i.consensus_ns for b in blocks for i in b.record.items]
    listed, errors = reader.transactions(list(reversed(wanted)))
    assert not errors and [t.consensus_ns for t in listed] == list(reversed(wanted))
    assert [(t.record_bytes, t.transaction_bytes) for t in listed] == [
        (i.record_bytes, i.transaction_bytes) for b in reversed(blocks) for i in reversed(b.record.items)
    ]
    in_block, errors = reader.block_transactions(1)
    assert not errors and [t.record_bytes for t in in_block] == [i.record_bytes for i in blocks[0].record.items]
    transaction_hash = found.record().transactionHash
    by_hash = reader.transaction_by_hash(transaction_hash)
    assert by_hash is not None and by_hash.consensus_ns == item.consensus_ns
    by_prefix = reader.transaction_by_hash_prefix(transaction_hash[:32])
    assert by_prefix is not None and by_prefix.consensus_ns == item.consensus_ns


def test_an_index_entry_leads_to_the_items_row_in_one_more_read() -> None:
    """tx_by_id, tx_by_hash and account_history entries carry (block, index): with the block's
    completion known, a transaction found through them is two reads, as before layout 2."""
    block, txs = block_with(1, 3)
    gateway, _ = store([block])
    reader = HistoryReader(gateway)
    reader.complete_blocks([1])
    tx = txs[1]
    valid_start = tx.record.transactionID.transactionValidStart

    def reads(lookup: Callable[[], object]) -> list[str]:
        reader._files.clear()
        reader._cells.clear()
        gateway.read_queries.clear()
        assert lookup()
        return [table for table, _ in gateway.read_queries]

    def by_id() -> object:
        results = reader.transactions_by_id("0.0.1001", valid_start.seconds * NS + valid_start.nanos)
        found, errors = reader.transactions(results)
        return not errors and [t.record_bytes for t in found] == [tx.record_bytes]

    def by_hash() -> object:
        found = reader.transaction_by_hash(tx.record.transactionHash)
        return found is not None and found.transaction_bytes == tx.transaction_bytes

    def by_account() -> object:
        page = reader.account_history("0.0.1001")
        found, errors = reader.transactions(page.entries)
        return not errors and len(found) == 3

    assert reads(by_id) == [s.TX_BY_ID, s.ITEMS]
    assert reads(by_hash) == [s.TX_BY_HASH, s.ITEMS]
    assert reads(by_account) == [s.ACCOUNT_HISTORY, s.ITEMS]
    # nothing of an entry outlives its call: a read by time alone goes through the transactions row
    assert reads(lambda: reader.transaction(tx.consensus_ns)) == [s.TRANSACTIONS, s.ITEMS]


def test_items_of_a_block_kept_as_an_item_list_are_read_even_when_one_does_not_decode() -> None:
    block, txs = block_with(1, 3)
    broken = RecordItem(b"\xff\xff", b"\xff\xff\xff", txs[-1].consensus_ns + 1000)
    block = replace(block, record=replace(block.record, items=(*block.record.items, broken)))
    _, reader = store([block])
    file = reader.block_file(1)
    assert file is not None and file.kind == "items"  # the rebuilt file no longer hashes right
    listed, errors = reader.transactions([t.consensus_ns for t in txs] + [broken.consensus_ns])
    assert not errors
    assert [t.record_bytes for t in listed] == [t.record_bytes for t in txs] + [broken.record_bytes]


def test_a_pointer_past_the_blocks_items_is_reported() -> None:
    block, txs = block_with(1, 3)
    gateway, reader = store([block])
    key = row_key_for_transaction(txs[1].consensus_ns)
    gateway.tables[s.TRANSACTIONS][key][(s.TRANSACTION_FAMILY, s.Q_POSITION)] = (0, b"\x00" + pack_position(1, 9))
    with pytest.raises(RowDecodeError, match="holds no item 9"):
        reader.transaction(txs[1].consensus_ns)
    listed, errors = reader.block_transactions(1)
    assert len(listed) == 2 and len(errors) == 1


def test_rows_of_layout_1_are_still_read() -> None:
    """Before layout 2, transactions rows held their bytes and tx_by_hash keys the whole hash (and
    before layout 3, transactions rows were keyed by the time alone)."""
    block, txs = block_with(1, 3)
    gateway, _ = store([block])
    for item in block.record.items:
        rows = gateway.tables[s.TRANSACTIONS]
        cells = rows[plain_row_key_for_transaction(item.consensus_ns)] = rows.pop(
            row_key_for_transaction(item.consensus_ns)
        )
        cells[(s.TRANSACTION_FAMILY, s.Q_RECORD)] = (0, encode_value(item.record_bytes))
        cells[(s.TRANSACTION_FAMILY, s.Q_TRANSACTION)] = (0, encode_value(item.transaction_bytes))
    hashes = gateway.tables[s.TX_BY_HASH]
    for tx in txs:
        whole = tx.record.transactionHash
        hashes[whole.hex().encode()] = hashes.pop(row_key_for_tx_hash(whole))
    # Index values of layout 1 name the block only.
    layout_1: tuple[tuple[str, Callable[[bytes], bytes]], ...] = (
        (s.TX_BY_HASH, lambda p: encode_hash_entry(replace(decode_hash_entry(p), cell=None, flags=0))),
        (s.TX_BY_ID, lambda p: encode_id_entry(replace(decode_id_entry(p), cell=None, flags=0))),
        (s.ACCOUNT_HISTORY, lambda p: encode_u64(decode_entry_pointer(p).block_number)),
    )
    for table, old_value in layout_1:
        for cells in gateway.tables[table].values():
            for address, (stamp, value) in cells.items():
                cells[address] = (stamp, encode_value(old_value(decode_value(value))))
    completion = gateway.tables[s.BLOCKS][row_key_for_block(1)]
    stamp, _ = completion[(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE)]
    old = CompletionValue(3, 0, layout=1)
    completion[(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE)] = (stamp, encode_value(encode_completion(old)))
    del gateway.tables[s.ITEMS][row_key_for_block(1)]  # the bytes must come from the rows themselves

    reader = HistoryReader(gateway)
    block_read = reader.get_block(1)
    assert block_read is not None and block_read.completion == old
    listed, errors = reader.block_transactions(1)
    assert not errors and [t.record_bytes for t in listed] == [t.record_bytes for t in txs]
    found = reader.transaction(txs[1].consensus_ns)
    assert found is not None and found.record_bytes == txs[1].record_bytes
    by_hash = reader.transaction_by_hash(txs[2].record.transactionHash)
    assert by_hash is not None and by_hash.consensus_ns == txs[2].consensus_ns
    statuses = reader.transaction_statuses([t.record.transactionHash for t in txs]).statuses
    assert [r.consensus_ns if r else None for r in statuses.values()] == [t.consensus_ns for t in txs]
    valid_start = txs[0].record.transactionID.transactionValidStart
    (by_id,) = reader.transactions_by_id("0.0.1001", valid_start.seconds * NS + valid_start.nanos)
    assert by_id.located is None and by_id.consensus_ns == txs[0].consensus_ns
    page = reader.account_history("0.0.1001")
    listed, errors = reader.transactions([e.consensus_ns for e in page.entries])
    assert not errors and [t.record_bytes for t in listed] == [t.record_bytes for t in reversed(txs)]


def test_account_history_pages_without_gap_or_duplicate() -> None:
    blocks = [block_with(n, 37)[0] for n in range(1, 30)]
    _, reader = store(blocks)
    expected = sorted((t.consensus_ns for b in blocks for t in b.record.items), reverse=True)
    seen: list[int] = []
    before = None
    while True:
        page = reader.account_history("0.0.1001", before=before, limit=100)
        seen.extend(e.consensus_ns for e in page.entries)
        if page.next_before is None:
            break
        before = page.next_before
    assert seen == expected


def test_account_history_cursors_need_not_be_stored() -> None:
    blocks = [block_with(n, 3)[0] for n in (1, 2)]
    _, reader = store(blocks)
    everything = [e.consensus_ns for e in reader.account_history("0.0.1001").entries]
    between = BASE_NS + 150 * NS  # between the two blocks: no transaction there
    assert [e.consensus_ns for e in reader.account_history("0.0.1001", before=between).entries] == everything[3:]
    assert [e.consensus_ns for e in reader.account_history("0.0.1001", until=between).entries] == everything[:3]
    assert reader.account_history("0.0.1001", before=everything[0]).entries[0].consensus_ns == everything[1]
    assert reader.account_history("0.0.1001", until=everything[-1]).entries[-1].consensus_ns == everything[-2]
    assert reader.account_history("0.0.1001", before=0).entries == ()
    assert reader.account_history("0.0.9999").entries == ()


def test_incomplete_blocks_do_not_shorten_pages() -> None:
    blocks = [block_with(n, 4)[0] for n in (1, 2, 3)]
    gateway, reader = store([blocks[0], blocks[2]])
    for row in block_to_rows(blocks[1], SETTINGS).rows:
        gateway.mutate_rows(row.table, [row])
    page = reader.account_history("0.0.1001", limit=6)
    assert [e.block_number for e in page.entries] == [3, 3, 3, 3, 1, 1]
    assert page.next_before == page.entries[-1].consensus_ns


def test_a_corrupt_row_is_reported_and_the_read_goes_on() -> None:
    blocks = [block_with(1, 5)[0]]
    gateway, reader = store(blocks)
    bad = row_key_for_account_history("0.0.1001", blocks[0].record.items[2].consensus_ns)
    gateway.tables[s.ACCOUNT_HISTORY][bad][(s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)] = (0, b"\x09broken")
    page = reader.account_history("0.0.1001")
    assert len(page.entries) == 4 and len(page.errors) == 1
    assert "account_history" in str(page.errors[0])
    key = row_key_for_transaction(blocks[0].record.items[0].consensus_ns)
    gateway.tables[s.TRANSACTIONS][key][(s.TRANSACTION_FAMILY, s.Q_POSITION)] = (0, b"\x00short")
    reader = HistoryReader(gateway)  # one that has not just read where the entries are (account history)
    with pytest.raises(RowDecodeError, match="transactions"):
        reader.transaction(blocks[0].record.items[0].consensus_ns)
    transactions, errors = reader.block_transactions(1)
    assert len(transactions) == 4 and len(errors) == 1


def test_sidecar_records_by_type() -> None:
    block, txs = block_with(1, 2, sidecar=True)
    _, reader = store([block])
    (record,) = reader.sidecar_records(txs[0].consensus_ns)
    assert (record.type, record.sidecar_id, record.index) == (3, 1, 0)
    assert reader.sidecar_records(txs[0].consensus_ns, types=[SidecarType.CONTRACT_ACTION]) == []
    assert reader.sidecar_records(txs[1].consensus_ns) == []
