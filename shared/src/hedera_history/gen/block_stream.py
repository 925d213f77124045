"""The block files of a generated stream, period by period, from its cutover on.

Before the cutover each record file still takes its place in the block chain: its wrapped block
(proof aside) is computed and its root becomes the next block's previous root, as the network
carries its record-stream history into the block stream. Then ``wrapped_periods`` periods are
published as wrapped record blocks, signed by the nodes' RSA keys of the address book in force,
and every later period as a native block signed by the stream's TSS network
(:class:`~hedera_history.gen.tss_signer.TssSigner`, set up from the seed: one roster entry per
node, its stake as weight). Every ``sign_every``-th native block (and the stream's last) carries
its own signature; the ones before it wait for it and carry a state proof through it, so their
files are written when it is.

One block numbering throughout: a period's block number is the record file's would be.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hedera_history import hapi
from hedera_history.formats.block import ProofKind
from hedera_history.formats.hashing import sha384
from hedera_history.gen.block_items import BlockItemWriter
from hedera_history.gen.block_proofs import record_file_proof_item, signed_block_proof_item, state_proof_item
from hedera_history.gen.blocks import (
    BlockChain,
    BlockDraft,
    block_object_path,
    event_header_item,
    header_item,
    round_header_item,
    wrapped_items,
)
from hedera_history.gen.config_and_output import (
    FIRST_NODE_ACCOUNT,
    GeneratedBlock,
    GeneratedPeriod,
    GeneratorConfig,
    NodeInfo,
    PeriodKind,
)
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.tss_signer import TssSigner

_DERIVATION = "hedera-history/gen/blocks/v1"
_SYSTEM_CREATOR = 0
"""The node whose event carries a transaction no node submitted (a stake update, the ledger id)."""

Signer = Callable[[bytes], bytes]
"""RSA: signs a record file's hash."""


def tss_network(config: GeneratorConfig, nodes: Sequence[NodeInfo]) -> TssSigner:
    """The stream's TSS network: every node, weighted by its stake (one each if any stake is 0)."""
    stakes = [node.stake for node in nodes]
    weights = stakes if all(stake > 0 for stake in stakes) else [1] * len(nodes)
    return TssSigner.create(
        weights, node_ids=[node.node_id for node in nodes], seed=f"{_DERIVATION}/tss/{config.seed}".encode()
    )


def publication_body(signer: TssSigner) -> hapi.TransactionBody:
    """The body of the transaction that publishes ``signer``'s ledger id and roster."""
    signed = hapi.SignedTransaction.FromString(signer.ledger_publication())
    return hapi.TransactionBody.FromString(signed.bodyBytes)


@dataclass(frozen=True, slots=True)
class _Pending:
    draft: BlockDraft
    block: GeneratedBlock


class BlockPeriods:
    """Turns each period of ``config`` into its place in the block chain and, from the cutover on,
    its block file."""

    def __init__(self, config: GeneratorConfig, nodes: Sequence[NodeInfo], genesis_balances: Mapping[int, int]):
        self.config = config
        self.nodes = tuple(nodes)
        self.tss = tss_network(config, nodes)
        self.item_writer = BlockItemWriter(genesis_balances)
        if config.start_block == 0:
            self.chain = BlockChain()
        else:
            before = sha384(f"{_DERIVATION}/before/{config.seed}/{config.start_block}".encode())
            self.chain = BlockChain(before, stand_in=before)
        self._pending: list[_Pending] = []

    def record(self, period: GeneratedPeriod, items: Sequence[GeneratedItem]) -> bytes:
        """A record file before the cutover: its wrapped block's root, now the chain's latest."""
        draft = self.chain.draft(period.block_number, wrapped_items(period, self.config.hapi_version), state_root=False)
        self.chain.advance(draft)
        self.item_writer.follow(items)
        return draft.hashes.root

    def wrapped(
        self, period: GeneratedPeriod, items: Sequence[GeneratedItem], signers: Mapping[int, Signer]
    ) -> tuple[GeneratedBlock, dict[str, bytes]]:
        """The wrapped record block of ``period``, signed by ``signers`` (node id -> signer)."""
        draft = self.chain.draft(period.block_number, wrapped_items(period, self.config.hapi_version), state_root=False)
        self.chain.advance(draft)
        self.item_writer.follow(items)
        signatures = [(node_id, sign(period.file_hash)) for node_id, sign in sorted(signers.items())]
        proof = record_file_proof_item(period.block_number, signatures)
        block = self._generated(
            draft,
            period.index,
            PeriodKind.WRAPPED,
            proof=ProofKind.SIGNED_RECORD_FILE_PROOF,
            proven_by=period.block_number,
            signers=tuple(sorted(signers)),
            items=items,
            record=period,
        )
        return block, {block.path: draft.file(proof)}

    def native(
        self, index: int, number: int, items: Sequence[GeneratedItem], signers: Sequence[int] | None
    ) -> tuple[GeneratedBlock, dict[str, bytes]]:
        """The native block of period ``index``; its file, and those of the blocks that waited for
        its signature, when it is signed directly (else no file yet). ``signers``: the node ids who
        sign and endorse (None: all)."""
        config = self.config
        start_ns = config.start_time_ns + index * config.period_ns
        round_number = number + 1
        block_items = [
            header_item(number, start_ns, config.block_hapi_version, config.block_hapi_version),
            round_header_item(round_number),
        ]
        creator: int | None = None
        for group, group_items in zip(_groups(items), self.item_writer.transactions(items), strict=True):
            node = group.facts.node
            group_creator = node - FIRST_NODE_ACCOUNT if node is not None else _SYSTEM_CREATOR
            if group_creator != creator:
                block_items.append(event_header_item(group_creator, round_number, start_ns))
                creator = group_creator
            block_items += group_items
        draft = self.chain.draft(number, block_items, state_root=True)
        self.chain.advance(draft)
        signed_directly = self._signs_directly(index)
        places = tuple(range(len(self.nodes))) if signers is None else tuple(sorted(signers))
        block = self._generated(
            draft,
            index,
            PeriodKind.NATIVE,
            proof=ProofKind.SIGNED_BLOCK_PROOF if signed_directly else ProofKind.BLOCK_STATE_PROOF,
            proven_by=number if signed_directly else config.block_number_of(self._signing_period(index)),
            signers=tuple(self.nodes[place].node_id for place in places),
            items=items,
        )
        self._pending.append(_Pending(draft, block))
        if not signed_directly:
            return block, {}
        signature = self.tss.sign(draft.hashes.root, signers=places, endorsers=places)
        files = {block.path: draft.file(signed_block_proof_item(number, signature))}
        waiting = [pending.draft for pending in self._pending]
        for position, pending in enumerate(self._pending[:-1]):
            proof = state_proof_item(pending.draft, waiting[position + 1 :], signature)
            files[pending.block.path] = pending.draft.file(proof)
        self._pending.clear()
        return block, files

    def _signs_directly(self, index: int) -> bool:
        return self._signing_period(index) == index

    def _signing_period(self, index: int) -> int:
        """The period whose block carries the signature that proves period ``index``'s block."""
        config = self.config
        first = (config.cutover_after or 0) + config.wrapped_periods
        position = index - first
        signing = first + (position // config.sign_every + 1) * config.sign_every - 1
        return min(signing, config.periods - 1)

    def _generated(
        self,
        draft: BlockDraft,
        index: int,
        kind: PeriodKind,
        *,
        proof: ProofKind,
        proven_by: int,
        signers: tuple[int, ...],
        items: Sequence[GeneratedItem],
        record: GeneratedPeriod | None = None,
    ) -> GeneratedBlock:
        block = draft.block
        footer = block.footer
        sidecar_types = sorted({kind for item in items for kind in item.facts.sidecar_types})
        return GeneratedBlock(
            index=index,
            block_number=draft.number,
            kind=kind,
            path=block_object_path(self.config.network, draft.number, flat=self.config.flat_blocks),
            root_hash=draft.hashes.root,
            previous_root_hash=footer.previous_block_root_hash,
            all_block_hashes_root=footer.root_hash_of_all_block_hashes_tree,
            timestamp_ns=block.timestamp_ns,
            consensus_start_ns=items[0].facts.consensus_ns,
            consensus_end_ns=items[-1].facts.consensus_ns,
            transactions=len(items),
            item_counts=tuple(block.item_counts().items()),
            proof=proof.name.lower(),
            proven_by=proven_by,
            signers=signers,
            sidecar_types=tuple(sidecar_types),
            sidecar_records=sum(len(item.sidecar_records) for item in items),
            record=record,
        )


def _groups(items: Sequence[GeneratedItem]) -> list[GeneratedItem]:
    """The top-level transaction of each group (a transaction and its children)."""
    return [item for position, item in enumerate(items) if position == 0 or item.facts.parent_consensus_ns is None]
