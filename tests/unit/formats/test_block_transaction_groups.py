"""The compiled core's grouping of a block file's items (``speedups.block_transaction_groups``) against
the Python walk: the same transactions, read the same, and the same records and sidecars, byte for byte."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hedera_history.errors import BlockTransactionError, CorruptFileError
from hedera_history.formats import block_transactions
from hedera_history.formats.block import BlockFile, ItemKind, parse_block, parse_block_file, serialize_block
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.block_transactions import BlockTransaction, block_file_transactions
from hedera_history.formats.wire import length_delimited, varint_field
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.speedups import block_transaction_groups

from tests.unit.formats.block_builders import BASE_NS, body, output_item, result_item, signed_item, state_item
from tests.unit.formats.block_files import footer_item, header_item, item, tss_proof_item

pytestmark = pytest.mark.skipif(block_transaction_groups is None, reason="the compiled core did not build here")

RICH = GeneratorConfig(
    nodes=4, periods=4, transactions=40, seed=11, cutover_after=0, topics=2, tokens=True, staking_rewards=True
)
"""Native blocks of every kind the generator makes: contracts with sidecars, tokens, topics, rewards."""
MIRROR_BLOCKS = "blocks/mirror-node-blockstreams"


def _generated() -> Iterator[BlockFile]:
    stream = generate_stream(RICH)
    for block in stream.blocks:
        yield parse_block_file(stream.objects[block.path], block.path)


def _as_read(transaction: BlockTransaction) -> tuple[object, ...]:
    messages = (*transaction.outputs, *transaction.trace_data, *transaction.state_changes)
    return (
        transaction.signed_transaction_bytes,
        transaction.signed_transaction.SerializeToString(),
        transaction.body.SerializeToString(),
        transaction.result.SerializeToString(),
        [m.SerializeToString() for m in messages],
        transaction.parent,
        transaction.in_batch,
        transaction.item_indexes,
        transaction.consensus_ns,
        transaction.parent_consensus_ns,
        transaction.status,
        transaction.data_case,
        transaction.legacy_hash,
        transaction.output_cases,
        [transaction.output(case) for case in ("contract_call", "account_create", "ethereum_call")],
    )


def _compiled(block: BlockFile) -> list[BlockTransaction] | None:
    checked = block_transactions._checked(block.content())
    assert block_transaction_groups is not None and checked is not None
    return block_transaction_groups(block_transactions._LAYOUT, block.items, checked.items)


def _python_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(block_transactions, "compiled_groups", None)


def _compare(block: BlockFile, monkeypatch: pytest.MonkeyPatch) -> int:
    compiled = block_file_transactions(block)
    compiled_files = native_block_files(block, bytes(48))
    with monkeypatch.context() as patch:
        _python_only(patch)
        walked = block_file_transactions(block)
        walked_files = native_block_files(block, bytes(48))
    assert [_as_read(t) for t in compiled] == [_as_read(t) for t in walked]
    assert compiled_files == walked_files
    return len(compiled)


def test_generated_blocks_of_every_kind_group_and_transform_as_the_python_walk_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocks = list(_generated())
    assert all(_compiled(block) is not None for block in blocks)
    assert sum(_compare(block, monkeypatch) for block in blocks) > 0
    kinds = {t.data_case for block in blocks for t in block_file_transactions(block)}
    assert {"cryptoTransfer", "contractCall", "consensusSubmitMessage", "tokenMint"} <= kinds


def test_the_mirror_nodes_real_blocks_group_and_transform_as_the_python_walk_does(
    hedera_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = sorted((hedera_data / MIRROR_BLOCKS).rglob("*.blk.zstd"))
    assert paths
    assert sum(_compare(parse_block_file(p.read_bytes(), p.name), monkeypatch) for p in paths) > 0


def _block(*middle: bytes) -> BlockFile:
    return parse_block(serialize_block([header_item(3), *middle, footer_item(), tss_proof_item(3)]), "3.blk")


def test_a_block_the_core_leaves_to_python_groups_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = [signed_item(body(payer=2000, cryptoTransfer={})).signed_transaction]
    batch = _block(
        signed_item(body(atomic_batch={"transactions": inner})).SerializeToString(),
        result_item(BASE_NS).SerializeToString(),
        result_item(BASE_NS + 1, parent_ns=BASE_NS).SerializeToString(),
    )
    assert _compiled(batch) is None
    assert _compare(batch, monkeypatch) == 2
    seconds, nanos = divmod(BASE_NS, 1_000_000_000)
    odd_time = varint_field(1, seconds) + varint_field(2, nanos) + varint_field(3, 1)  # a field besides the two
    odd = _block(
        signed_item(body(cryptoTransfer={})).SerializeToString(),
        result_item(BASE_NS).SerializeToString(),
        output_item(account_create={}).SerializeToString(),
        item(ItemKind.STATE_CHANGES, length_delimited(1, odd_time)),
    )
    assert _compiled(odd) is None
    assert _compare(odd, monkeypatch) == 1
    plain = _block(
        signed_item(body(cryptoTransfer={})).SerializeToString(),
        result_item(BASE_NS).SerializeToString(),
        output_item(account_create={}).SerializeToString(),
        state_item(BASE_NS).SerializeToString(),
    )
    assert _compiled(plain) is not None
    assert _compare(plain, monkeypatch) == 1


def test_an_item_or_a_body_that_does_not_parse_is_refused_as_the_python_walk_refuses_it() -> None:
    with pytest.raises(CorruptFileError, match="transaction_result item"):
        block_file_transactions(_block(signed_item(body(cryptoTransfer={})).SerializeToString(), item(5, b"\xff")))
    not_a_body = item(4, b"\x0a\x02\xff\xff")  # SignedTransaction.bodyBytes that do not parse
    with pytest.raises(BlockTransactionError, match="transaction 0"):
        block_file_transactions(_block(not_a_body, result_item(BASE_NS).SerializeToString()))
