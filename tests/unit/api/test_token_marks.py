"""The token index's ``held`` markers (``store.token_index``): one per (account, token) per block,
at the first transaction of the block that changes that balance, and an errata removing that
transaction moves it to the block's next such transaction (``errata.token_marks``), so an account
whose association predates the history kept still lists the token, with its balance."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hedera_history import hapi
from hedera_history.errata.apply import apply_errata
from hedera_history.store import schema as s
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.token_index import HELD, RELATION_PREFIX, decode_relation_key, holder_prefix
from hedera_history.store.writer import BlockWriter

from tests.unit.api.reference_fetch import reference_fetcher
from tests.unit.errata.fakes import VersionedGateway
from tests.unit.errata.helpers import SETTINGS, errata_file, visible
from tests.unit.store.builders import BASE_NS, NS, Tx, account, body, make_block, record_for, signed_transaction_bytes

TREASURY, CAROL, DAVE, GOLD = 3001, 3010, 3011, 5001
"""GOLD and CAROL's association with it are older than the history kept."""
GOLD_ID, TREASURY_ID, CAROL_ID, DAVE_ID = f"0.0.{GOLD}", f"0.0.{TREASURY}", f"0.0.{CAROL}", f"0.0.{DAVE}"
T1, T2, T3 = BASE_NS + 10 * NS, BASE_NS + 11 * NS, BASE_NS + 12 * NS


def _transfer(consensus_ns: int, *amounts: tuple[int, int]) -> Tx:
    b = body(TREASURY, consensus_ns - 5 * NS)
    b.cryptoTransfer.SetInParent()
    tx_bytes = signed_transaction_bytes(b)

    def configure(record: Any) -> None:
        listed = record.tokenTransferLists.add()
        listed.token.CopyFrom(hapi.basic_types.TokenID(shardNum=0, realmNum=0, tokenNum=GOLD))
        for num, amount in amounts:
            listed.transfers.add(accountID=account(num), amount=amount)

    record = record_for(b, consensus_ns, tx_bytes, configure=configure)
    return Tx(consensus_ns, tx_bytes, bytes(record.SerializeToString()))


def _block() -> Any:
    return make_block(
        0,
        [
            _transfer(T1, (TREASURY, -10), (CAROL, 10)),
            _transfer(T2, (TREASURY, -5), (CAROL, 5), (DAVE, 0)),
            _transfer(T3, (CAROL, -1), (DAVE, 1)),
        ],
    )


def _stored(gateway: VersionedGateway) -> VersionedGateway:
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks([_block()]))
    return gateway


def _markers(keys: Iterable[bytes]) -> list[tuple[str, str, int]]:
    found = [decode_relation_key(k) for k in keys if k.startswith(RELATION_PREFIX)]
    return sorted((h.account, h.token, h.consensus_ns) for h in found if h.event == HELD)


def test_a_block_marks_each_balance_it_changes_once_at_its_first_change() -> None:
    keys = [row.key for row in block_to_rows(_block(), SETTINGS).rows if row.table == s.ACCOUNT_HISTORY]
    assert _markers(keys) == [(TREASURY_ID, GOLD_ID, T1), (CAROL_ID, GOLD_ID, T1), (DAVE_ID, GOLD_ID, T3)]
    assert sum(k.startswith(holder_prefix(GOLD_ID, CAROL_ID)) for k in keys) == 3  # every change, in holder/


def test_an_errata_removing_the_marked_transaction_moves_the_marker_to_the_next_change() -> None:
    gateway = _stored(VersionedGateway())
    plan = apply_errata(errata_file(T3 + 100 * NS, T1, None), gateway, SETTINGS)
    assert _markers(visible(gateway, [s.ACCOUNT_HISTORY])[s.ACCOUNT_HISTORY]) == [
        (TREASURY_ID, GOLD_ID, T2),
        (CAROL_ID, GOLD_ID, T2),
        (DAVE_ID, GOLD_ID, T3),
    ]
    assert not plan.already_applied
    assert apply_errata(errata_file(T3 + 100 * NS, T1, None), gateway, SETTINGS).already_applied
    get = reference_fetcher(HistoryReader(gateway))
    tokens = get(f"/api/v1/accounts/{CAROL_ID}/tokens")["tokens"]
    assert [(t["token_id"], t["balance"]) for t in tokens] == [(GOLD_ID, 4)]
    balances = get(f"/api/v1/tokens/{GOLD_ID}/balances?account.id={CAROL_ID}")["balances"]
    assert [(b["account"], b["balance"]) for b in balances] == [(CAROL_ID, 4)]


def test_an_errata_removing_a_later_change_leaves_the_marker() -> None:
    gateway = _stored(VersionedGateway())
    apply_errata(errata_file(T3 + 100 * NS, T2, None), gateway, SETTINGS)
    assert _markers(visible(gateway, [s.ACCOUNT_HISTORY])[s.ACCOUNT_HISTORY]) == [
        (TREASURY_ID, GOLD_ID, T1),
        (CAROL_ID, GOLD_ID, T1),
        (DAVE_ID, GOLD_ID, T3),
    ]
    tokens = reference_fetcher(HistoryReader(gateway))(f"/api/v1/accounts/{CAROL_ID}/tokens")["tokens"]
    assert [(t["token_id"], t["balance"]) for t in tokens] == [(GOLD_ID, 9)]
