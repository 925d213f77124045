"""A small stored history (three blocks) and errata for it, on the versioned memory gateway."""

from __future__ import annotations

from collections.abc import Sequence

from hedera_history.config import Settings
from hedera_history.errata.cells import is_tombstone
from hedera_history.errata.codec import (
    encode_errata_body,
    encode_errata_file,
    parse_errata_file,
    record_stream_item_bytes,
)
from hedera_history.errata.errata_file import ErrataFile
from hedera_history.errata.synthetic import synthetic_transfer_item
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.store import schema as s
from hedera_history.store.rows import block_to_rows
from hedera_history.store.writer import BlockWriter

from tests.helpers.layout_2 import as_layout_2
from tests.unit.store.builders import BASE_NS, NS, Tx, make_block, transfer_tx

from .fakes import VersionedGateway

SETTINGS = Settings.from_env({})
MS = 1_000_000

A = transfer_tx(BASE_NS + 1 * NS, 1001, 1002, 100)
B = transfer_tx(BASE_NS + 1 * NS + 500 * MS, 1002, 1003, 50)
C = transfer_tx(BASE_NS + 3 * NS, 1001, 1003, 30)
D = transfer_tx(BASE_NS + 3 * NS + 500 * MS, 1003, 1004, 20)
E = transfer_tx(BASE_NS + 4 * NS, 1004, 1001, 10)
F = transfer_tx(BASE_NS + 5 * NS, 1001, 1002, 5)
BLOCK_TXS: tuple[tuple[Tx, ...], ...] = ((A, B), (C, D, E), (F,))
BLOCKS = tuple(make_block(n, txs) for n, txs in enumerate(BLOCK_TXS))


def stored_history(blocks: Sequence[int] = (0, 1, 2)) -> VersionedGateway:
    gateway = VersionedGateway()
    results = BlockWriter(gateway, SETTINGS).write_blocks([BLOCKS[n] for n in blocks])
    assert all(r.complete for r in results)
    return gateway


def stored_as_layout_2() -> VersionedGateway:
    """The same history as layout 2 wrote it: ``transactions`` rows keyed by the time alone."""
    gateway = VersionedGateway()
    built = (as_layout_2(block_to_rows(b, SETTINGS)) for b in BLOCKS)
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).iter_write_rows(built))
    assert all(len(key) == 16 for key in gateway.tables[s.TRANSACTIONS])
    return gateway


def errata_file(
    consensus_ns: int,
    time_of_error: int,
    correct: RecordItem | None,
    compensations: Sequence[tuple[str, int]] = (),
) -> ErrataFile:
    items = [synthetic_transfer_item(consensus_ns, compensations)] if compensations else []
    body = encode_errata_body(time_of_error, None if correct is None else record_stream_item_bytes(correct), items)
    return parse_errata_file(encode_errata_file(consensus_ns, body), f"errata-{consensus_ns}")


View = dict[str, dict[bytes, dict[tuple[str, bytes], bytes]]]


def visible(gateway: VersionedGateway, tables: Sequence[str] | None = None) -> View:
    """What a reader honouring errata sees: latest values, no tombstones, no timestamps."""
    out: View = {}
    for table, rows in gateway.tables.items():
        if tables is not None and table not in tables:
            continue
        for key, cells in rows.items():
            shown = {address: value for address, (_, value) in cells.items() if not is_tombstone(value)}
            if shown:
                out.setdefault(table, {})[key] = shown
    return out
