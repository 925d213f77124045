"""Thousands of account-history entries paged newest first: no gap, no duplicate."""

from __future__ import annotations

from tests.unit.store.builders import BASE_NS, NS, make_block, transfer_tx

from .conftest import Store

BLOCKS = 30
PER_BLOCK = 100


def test_paging_over_thousands_of_entries(store: Store) -> None:
    blocks = []
    for b in range(BLOCKS):
        start = BASE_NS + b * 10 * NS
        # Every transaction pays from 0.0.1001; the receivers rotate.
        blocks.append(make_block(b, [transfer_tx(start + i * 1000, 1001, 2000 + i % 7) for i in range(PER_BLOCK)]))
    assert all(r.complete for r in store.writer.write_blocks(blocks))
    expected = sorted((i.consensus_ns for b in blocks for i in b.record.items), reverse=True)
    assert len(expected) == BLOCKS * PER_BLOCK

    for limit in (1000, 257):
        seen: list[int] = []
        before = None
        while True:
            page = store.reader.account_history("0.0.1001", before=before, limit=limit)
            assert page.errors == ()
            seen.extend(e.consensus_ns for e in page.entries)
            if page.next_before is None:
                break
            before = page.next_before
        assert seen == expected

    # Cursors that fall between transactions (never stored) work as well.
    gap = expected[500] + 500
    assert [e.consensus_ns for e in store.reader.account_history("0.0.1001", before=gap, limit=3).entries] == expected[
        500:503
    ]
    window = store.reader.account_history("0.0.1001", before=expected[100], until=expected[150], limit=1000)
    assert [e.consensus_ns for e in window.entries] == expected[101:150]
    receiver = store.reader.account_history("0.0.2003", limit=1000)
    assert len(receiver.entries) == sum(1 for i in range(PER_BLOCK) if i % 7 == 3) * BLOCKS
