"""Golden cells: row building gives byte-identical cells for a generated mixed stream and the real
V5 and V6 sets, as recorded before row building was made fast, and recorded again for layout 2
(``values.COMPLETION_LAYOUT``: transactions rows point into the items row, index entries carry the
index, 16-byte ``tx_by_hash`` keys, raw sidecar records), and again for items cells (the items row
cut at item boundaries, cell 0 the others' zlib dictionary; pointers name the cell, index entries
the place in it), and again for layout 3 (``transactions`` and ``sidecars`` keys behind a time
bucket): before recording, layout 3's cells were checked to give layout 2's digests once their keys
were mapped back to the time alone, the completion byte to 2 and those rows to key order, so
nothing but the keys, their order and that byte changed. Recorded again when layout 3's bucket
became that of the time's 134 ms span (``keys.TIME_SPAN_BITS``: a span's rows are neighbours, and
compress as before buckets) and the system accounts' ``account_history`` keys took it too (a
bucket letter): the new cells mapped back to the keys recorded before (the old bucket of each
time, plain account keys) and to key order gave the digests recorded before, for every set.
Recorded again when the entity index (``store.entity_index``: ``entity/`` and ``alias/`` rows in
``account_history``) was added: the new cells without those rows gave the digests recorded before.
The blocks' ``h:gas_used`` and ``h:logs_bloom`` cells (``store.block_totals``) came after the
recording and are left out of the digest, as the block-hash index rows are, and so are the token,
airdrop, schedule, reward and registered-node indexes' rows (``store.token_index``,
``store.airdrop_index``, ``store.schedule_index``, ``store.reward_index``,
``store.registered_node_index``), checked by their own tests.

The digests cover every row (table, key) and cell (family, qualifier, value, timestamp) of every
block, completion rows included, in the order ``block_to_rows`` returns them. The input's digest
is checked first, so a changed generator is told apart from changed cells.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value
from hedera_history.store.entity_index import (
    AIRDROP_PREFIX,
    CONTRACT_LOG_PREFIX,
    CONTRACT_RESULT_PREFIX,
    REGISTERED_NODE_PREFIX,
    REWARD_PREFIX,
    SCHEDULE_PREFIX,
    TOKEN_INDEX_PREFIXES,
)
from hedera_history.store.keys import BLOCK_HASH_PREFIX, row_key_for_block_hash
from hedera_history.store.model import Row
from hedera_history.store.rows import block_to_rows
from hedera_history.store.values import decode_u64
from hedera_history.verify.stream import verify_stream

from .builders import BASE_NS, NS, Tx, account, body, contract, make_block, record_for, signed_transaction_bytes

SETTINGS = Settings()
MIXED = GeneratorConfig(nodes=4, periods=6, transactions=150, seed=11)

GOLDEN = {
    "crafted": (
        "7cdcd08a9022ca9228694223adb29722deb10f8392187a86090f563c9cdb3bf4",
        "e58634479a0ae6b0110da76f1549165f5caa71960ed1a65c32a45d042dae0e8c",
    ),
    "generated": (
        "34ad2a63e8129762acb38320bcaa42a7f67b2b773e6a66f7e8f7a0b14df019b2",
        "53f862c652b07296859e93fe179c1b57f54a6cf283021e663593fba546942030",
    ),
    "v5": (
        "8a95599f8235edb9425b180c57201593f110bda53d72cf081cc15f3eec142ca9",
        "248205ae48511ffa88b3280b4a37dec6dba8e33633ceab2b5ac8b690984d6e0b",
    ),
    "v6": (
        "342c9e27c2f9d9fa58c01f01d6b55431ddf9701aed338e679d8b3e960f6cf9d8",
        "81555fbd1c22d7cbeb88b0869a91bfc155a4b448111f40b9d93e550e712e8c69",
    ),
}
"""Set name -> (sha256 of the blocks' items, sha256 of their cells)."""


def verified_blocks(folder: Path, book: bytes) -> list[VerifiedBlock]:
    results = verify_stream(find_local_periods(folder), parse_address_book(book))
    blocks = [r.report.block for r in results]
    assert blocks and all(b is not None for b in blocks)
    return [b for b in blocks if b is not None]


def input_digest(blocks: Iterable[VerifiedBlock]) -> str:
    digest = hashlib.sha256()
    for block in blocks:
        digest.update(b"%d|" % block.block_number)
        for item in block.record.items:
            digest.update(b"%d|%d|" % (item.consensus_ns, len(item.transaction_bytes)))
            digest.update(item.transaction_bytes + item.record_bytes)
    return digest.hexdigest()


_LATER_INDEXES = (
    *TOKEN_INDEX_PREFIXES,
    AIRDROP_PREFIX,
    SCHEDULE_PREFIX,
    REWARD_PREFIX,
    REGISTERED_NODE_PREFIX,
    CONTRACT_RESULT_PREFIX,
    CONTRACT_LOG_PREFIX,
)


def cells_digest(blocks: Iterable[VerifiedBlock], settings: Settings = SETTINGS) -> str:
    digest = hashlib.sha256()
    for block in blocks:
        built = block_to_rows(block, settings)
        digest.update(b"block %d %d\n" % (built.block_number, built.block_time_ns))
        for row in (*built.rows, built.completion):
            if row.key.startswith(BLOCK_HASH_PREFIX):
                continue  # the block-hash index came after the recording (test_block_hash_index)
            if row.table == s.ACCOUNT_HISTORY and row.key.startswith(_LATER_INDEXES):
                continue  # so did the token, airdrop, schedule, reward, registered-node and contract indexes
            _update_row(digest, row)
    return digest.hexdigest()


_LATER_CELLS = (s.Q_GAS_USED, s.Q_LOGS_BLOOM)


def _update_row(digest: hashlib._Hash, row: Row) -> None:
    cells = [c for c in row.cells if not (row.table == s.BLOCKS and c.qualifier.endswith(_LATER_CELLS))]
    digest.update(b"row %s %s %d\n" % (row.table.encode(), row.key, len(cells)))
    for cell in cells:
        digest.update(b"%s|%d|%d|" % (cell.family.encode(), len(cell.qualifier), len(cell.value)))
        digest.update(cell.qualifier + cell.value + b"|%d\n" % cell.timestamp_micros)


def crafted_block() -> VerifiedBlock:
    """Items the generator does not make: every body target, record-only accounts, the three
    transaction forms, undecodable records and bodies, shard/realm, aliases, a long memo."""
    txs: list[Tx] = []

    def add(b: Any, configure: Any = None, *, form: str = "signed", nonce: int = 0, status: int = 22) -> None:
        consensus = BASE_NS + len(txs) * NS
        if form == "signed":
            tx_bytes = signed_transaction_bytes(b)
        elif form == "body_bytes":
            tx_bytes = hapi.Transaction(bodyBytes=b.SerializeToString()).SerializeToString()
        else:
            tx_bytes = hapi.Transaction(body=b).SerializeToString()
        record = record_for(b, consensus, tx_bytes, transfers=((1001, -5), (3, 2), (98, 3)), nonce=nonce, status=status)
        if configure is not None:
            configure(record)
        txs.append(Tx(consensus, bytes(tx_bytes), bytes(record.SerializeToString())))

    def new(payer: int = 1001) -> Any:
        return body(payer, BASE_NS - NS * (len(txs) + 1))

    for case, field in (
        ("cryptoUpdateAccount", "accountIDToUpdate"),
        ("cryptoDelete", "deleteAccountID"),
        ("cryptoDeleteLiveHash", "accountOfLiveHash"),
        ("tokenFreeze", "account"),
        ("tokenWipe", "account"),
        ("tokenCreation", "treasury"),
        ("tokenReject", "owner"),
        ("scheduleCreate", "payerAccountID"),
        ("nodeCreate", "account_id"),
        ("nodeUpdate", "account_id"),
    ):
        b = new()
        getattr(getattr(b, case), field).CopyFrom(account(3000 + len(txs)))
        add(b)
    for case in ("contractCall", "contractUpdateInstance", "contractDeleteInstance", "systemDelete"):
        b = new()
        getattr(b, case).contractID.CopyFrom(contract(4000 + len(txs)))
        add(b, status=7)
    b = new()
    b.cryptoApproveAllowance.cryptoAllowances.add(owner=account(2001), spender=account(2002), amount=5)
    b.cryptoApproveAllowance.tokenAllowances.add(owner=account(2003), spender=account(2004), amount=5)
    b.cryptoApproveAllowance.nftAllowances.add(owner=account(2005), spender=account(2006))
    add(b, form="body_bytes")
    b = new()
    b.cryptoDeleteAllowance.nftAllowances.add(owner=account(2007))
    add(b, form="body")
    b = new()
    b.tokenClaimAirdrop.pending_airdrops.add().sender_id.CopyFrom(account(2008))
    add(b)

    def rich(record: Any) -> None:
        record.paid_staking_rewards.add(accountID=account(2101), amount=7)
        fee = record.assessed_custom_fees.add(amount=1)
        fee.fee_collector_account_id.CopyFrom(account(2102))
        fee.effective_payer_account_id.add().CopyFrom(account(2103))
        record.automatic_token_associations.add().account_id.CopyFrom(account(2104))
        pending = record.new_pending_airdrops.add()
        pending.pending_airdrop_id.sender_id.CopyFrom(account(2105))
        pending.pending_airdrop_id.receiver_id.CopyFrom(hapi.AccountID(shardNum=1, realmNum=2, accountNum=2106))
        tokens = record.tokenTransferLists.add()
        tokens.transfers.add(accountID=account(2107), amount=1)
        tokens.transfers.add(accountID=hapi.AccountID(alias=b"alias"), amount=-1)
        tokens.nftTransfers.add(senderAccountID=account(2108), receiverAccountID=account(2109))
        record.receipt.accountID.CopyFrom(account(2110))
        record.contractCallResult.contractID.CopyFrom(contract(2111))
        record.contractCallResult.createdContractIDs.add().CopyFrom(contract(2112))
        record.contractCallResult.sender_id.CopyFrom(account(2113))
        record.memo = "m" * 2000

    b = new()
    b.memo = "x" * 3000
    add(b, rich)
    add(new(), nonce=1)
    add(new(), lambda r: r.ClearField("transactionID"))
    add(new(), lambda r: r.ClearField("transactionHash"))
    add(new(0))
    consensus = BASE_NS + len(txs) * NS
    txs.append(Tx(consensus, b"\xff\xff\xff", txs[0].record_bytes))
    txs.append(Tx(consensus + 1, txs[0].transaction_bytes, b"\xff\xff\xff"))
    return make_block(77, txs)


@pytest.fixture(scope="module")
def sets(hedera_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[VerifiedBlock]]:
    folder = tmp_path_factory.mktemp("golden-mixed")
    write_stream(generate_stream(MIXED), folder)
    return {
        "crafted": [crafted_block()],
        "generated": verified_blocks(folder, (folder / "address-book.bin").read_bytes()),
        "v5": verified_blocks(
            hedera_data / "v5", (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()
        ),
        "v6": verified_blocks(
            hedera_data / "v6", (hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes()
        ),
    }


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_cells_are_the_recorded_ones(name: str, sets: dict[str, list[VerifiedBlock]]) -> None:
    expected_input, expected_cells = GOLDEN[name]
    blocks = sets[name]
    assert input_digest(blocks) == expected_input, f"the {name} input changed: record new digests from the old code"
    assert cells_digest(blocks) == expected_cells


def test_cells_without_sidecars_are_the_recorded_ones(sets: dict[str, list[VerifiedBlock]]) -> None:
    assert cells_digest(sets["generated"], SETTINGS.with_(sidecars_enabled=False)) == CELLS_GENERATED_NO_SIDECARS


CELLS_GENERATED_NO_SIDECARS = "4ae5fdddb5e3f82a9b2685e7fc89dc4a71bf83f53718c364cbec51bb84190061"


@pytest.mark.parametrize("name", ["generated", "v5", "v6"])
def test_block_hash_index_rows_point_at_their_block(name: str, sets: dict[str, list[VerifiedBlock]]) -> None:
    for block in sets[name]:
        built = block_to_rows(block, SETTINGS)
        shown = block.record.end_running_hash or block.record.file_hash
        (index,) = [row for row in built.rows if row.key.startswith(BLOCK_HASH_PREFIX)]
        assert index.key == row_key_for_block_hash(shown)
        (cell,) = index.cells
        assert (cell.family, cell.qualifier) == (s.BLOCK_HEADER_FAMILY, s.Q_BLOCK_NUMBER)
        assert decode_u64(decode_value(cell.value)) == block.block_number
