"""Proof bundles laid out from parsed files and their nodes' signatures.

A block's evidence: V1/V2 files whole (their file hash covers every byte); V5/V6 files as the
run of items from the first proven one to the file's end (the running hash before it, the items
proven in full, the others as item hashes) with the header fields of the metadata hash, unless
sidecars are proven (then the whole file, whose file hash covers the sidecar hashes) or the nodes
signed the file hash only (a wrapped record block's ``SignedRecordFileProof``: the whole file too). Signatures:
the fewest nodes, heaviest first, whose stake reaches the consensus share of the book the verifier
will weigh them with (the chain is replayed here exactly as the verifier replays it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from hedera_history import hapi
from hedera_history.block import NodeSignature
from hedera_history.books.address_book import AddressBook
from hedera_history.books.packed import pack_book
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import HashMismatchError, ProofBookError, ProofFormatError
from hedera_history.formats.hashing import item_hash, running_hash, sha384
from hedera_history.formats.parsed_files import RecordFile, RecordItem, SidecarFile
from hedera_history.formats.sidecar import write_sidecar_file
from hedera_history.proofs.chain import BookChain, chain_change
from hedera_history.proofs.codec import FORMAT_VERSION, encode_bundle
from hedera_history.proofs.correction import AcceptedErrata, correction_evidence
from hedera_history.proofs.verify import transaction_id_text
from hedera_history.proto_gen.proof_pb2 import BlockEvidence, ProofBundle, TrustChain
from hedera_history.store.originals import signed_file_bytes
from hedera_history.verify.consensus import DEFAULT_RATIO, meets_ratio


@dataclass(frozen=True, slots=True)
class SignedBlock:
    """A record file, its block number and the signatures its nodes gave it."""

    record: RecordFile
    block_number: int
    signatures: tuple[NodeSignature, ...]
    sidecars: tuple[SidecarFile, ...] = ()
    signed_bytes: bytes | None = None
    """The bytes the file hash covers when the parsed file cannot give them back (a wrapped block's
    record file, rebuilt from the block's own bytes); None: rebuilt from ``record``."""


@dataclass(frozen=True, slots=True)
class ChainStep:
    """A block that changed 0.0.102 or the stakes, and which of its items did."""

    block: SignedBlock
    indices: tuple[int, ...]

    @property
    def changes_book(self) -> bool:
        return any(_is_file_change(self, i) for i in self.indices)


def _is_file_change(step: ChainStep, index: int) -> bool:
    change = chain_change(step.block.record.items[index])
    return change is not None and change.file is not None


def chain_step(block: SignedBlock) -> ChainStep | None:
    """The block as a chain step, or None when it changes neither 0.0.102 nor the stakes."""
    indices = tuple(i for i, item in enumerate(block.record.items) if _changes_chain(item, block.record.name))
    return ChainStep(block, indices) if indices else None


def _changes_chain(item: RecordItem, name: str) -> bool:
    try:
        return chain_change(item, name) is not None
    except ProofFormatError:
        return False  # a body that does not decode is no book or stake change


@dataclass
class ChainPlan:
    """The checkpoint book's bytes and the steps since, in consensus order."""

    checkpoint: bytes
    steps: list[ChainStep] = field(default_factory=list)
    ship_checkpoint: bool = True
    """Carry the checkpoint book (a client pinning only its hash needs it)."""

    def before(self, consensus_ns: int) -> ChainPlan:
        """The steps whose blocks end before ``consensus_ns``, stake updates superseded before the
        next book change left out."""
        steps = [s for s in self.steps if s.block.record.consensus_end < consensus_ns]
        kept: list[ChainStep] = []
        for index, step in enumerate(steps):
            following = steps[index + 1] if index + 1 < len(steps) else None
            if not step.changes_book and following is not None and not following.changes_book:
                continue
            kept.append(step)
        return ChainPlan(self.checkpoint, kept, self.ship_checkpoint)


def build_chain(plan: ChainPlan, *, ratio: Fraction = DEFAULT_RATIO) -> tuple[TrustChain, BookChain]:
    """The trust chain's evidence and the state the verifier will reach after it."""
    state = BookChain(parse_address_book(plan.checkpoint, "checkpoint book"))
    chain = TrustChain()
    if plan.ship_checkpoint:
        packed = pack_book(plan.checkpoint)
        if packed is None:
            chain.checkpoint_book = plan.checkpoint
        else:
            chain.checkpoint_packed.CopyFrom(packed)
    chain.steps.extend(chain_steps(state, plan.steps, ratio=ratio))
    return chain, state


def chain_steps(
    state: BookChain, steps: Sequence[ChainStep], *, ratio: Fraction = DEFAULT_RATIO, what: str = "trust chain step"
) -> list[BlockEvidence]:
    """The evidence of ``steps`` from ``state`` on (which they advance), as the verifier applies it."""
    evidences: list[BlockEvidence] = []
    needed = 0  # steps up to the last that changed the book or stakes (later ones only began a book)
    for index, step in enumerate(steps):
        evidence = block_evidence(step.block, state.consensus_book, shown=step.indices, ratio=ratio)
        items = [step.block.record.items[i] for i in step.indices]
        number = step.block.record.block_number if step.block.record.version == 6 else None
        before = (state.book_updates, state.stake_updates)
        try:
            state.apply_step(items, number, f"{what} {index}")
        except ProofBookError:
            if step.changes_book:
                raise
            continue  # stakes equal to those in force: nothing to prove
        evidences.append(evidence)
        if (state.book_updates, state.stake_updates) != before:
            needed = len(evidences)
    return evidences[:needed]


def block_evidence(
    block: SignedBlock,
    book: AddressBook,
    *,
    shown: Collection[int] | None = None,
    whole_file: bool = False,
    ratio: Fraction = DEFAULT_RATIO,
) -> BlockEvidence:
    """``block`` as evidence proving the items at ``shown`` (None: every item)."""
    record = block.record
    evidence = BlockEvidence(record_version=record.version)
    # A wrapped record block (HIP-1427) keeps each node's signature over the file hash only.
    file_signatures_only = not any(signature.metadata_signature for signature in block.signatures)
    if record.version in (1, 2) or whole_file or file_signatures_only:
        data = block.signed_bytes if block.signed_bytes is not None else signed_file_bytes(record)
        if data is None:
            raise ProofFormatError(f"{record.name}: the signed bytes cannot be rebuilt from the parsed file")
        evidence.record_file = data
        evidence.signed_hash = record.file_hash
        use_metadata = False
    else:
        _fill_item_run(evidence, record, sorted(set(range(len(record.items))) if shown is None else set(shown)))
        use_metadata = True
    _add_signatures(evidence, _chosen_signatures(block.signatures, book, ratio, use_metadata))
    return evidence


def _fill_item_run(evidence: BlockEvidence, record: RecordFile, shown: Sequence[int]) -> None:
    if not shown:
        raise ProofFormatError(f"{record.name}: an item run must show at least one item")
    assert record.start_running_hash is not None and record.metadata_hash is not None
    header = evidence.header
    header.hapi_major, header.hapi_minor, header.hapi_patch = record.hapi_version
    if record.version == 5:
        header.object_stream_version = record.object_stream_version or 0
    else:
        header.block_number = record.block_number or 0
    header.start_running_hash = record.start_running_hash
    first = shown[0]
    items = record.items
    run = evidence.items
    run.running_hash_before = running_hash(
        record.start_running_hash, ((i.record_bytes, i.transaction_bytes) for i in items[:first])
    )
    wanted = set(shown)
    pending: list[bytes] = []
    for index in range(first, len(items)):
        item = items[index]
        if index in wanted:
            if pending:
                run.entries.add().item_hashes = b"".join(pending)
                pending = []
            entry = run.entries.add().item
            entry.transaction = item.transaction_bytes
            entry.record = item.record_bytes
        else:
            pending.append(item_hash(item.record_bytes, item.transaction_bytes))
    if pending:
        run.entries.add().item_hashes = b"".join(pending)
    evidence.signed_hash = record.metadata_hash


def _chosen_signatures(
    signatures: Sequence[NodeSignature], book: AddressBook, ratio: Fraction, use_metadata: bool
) -> list[tuple[int, bytes]]:
    usable: list[tuple[int, int, bytes]] = []
    for signature in signatures:
        node = book.by_node_id(signature.node_id)
        value = signature.metadata_signature if use_metadata else signature.file_signature
        if node is not None and value:
            usable.append((node.stake, node.node_id, value))
    usable.sort(key=lambda entry: (-entry[0], entry[1]))
    chosen: list[tuple[int, int, bytes]] = []
    for entry in usable:
        chosen.append(entry)
        if meets_ratio(sum(stake for stake, _, _ in chosen), book.total_stake, ratio):
            break
    return sorted(((node_id, value) for _, node_id, value in chosen), key=lambda pair: pair[0])


def _add_signatures(evidence: BlockEvidence, chosen: list[tuple[int, bytes]]) -> None:
    for node_id, value in chosen:
        signature = evidence.signatures.add()
        signature.node_id = node_id
        signature.signature = value


def transaction_bundle(
    block: SignedBlock,
    index: int,
    plan: ChainPlan,
    *,
    sidecars: bool = False,
    ratio: Fraction = DEFAULT_RATIO,
    errata: AcceptedErrata | None = None,
) -> bytes:
    """The proof of the item at ``index`` of ``block`` (with its sidecar files when asked); with
    the errata in force for it, its correction too (``plan`` then reaches the errata's time)."""
    item = block.record.items[index]
    chain, state = build_chain(plan.before(block.record.consensus_start), ratio=ratio)
    bundle = ProofBundle(format_version=FORMAT_VERSION)
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    subject = bundle.subject.transaction
    subject.transaction_id = transaction_id_text(record.transactionID)
    subject.nonce = record.transactionID.nonce
    subject.scheduled = record.transactionID.scheduled
    subject.consensus_ns = item.consensus_ns
    chosen_sidecars = _sidecars_of(block, item) if sidecars else []
    whole = bool(chosen_sidecars) and block.record.version == 6
    bundle.block.CopyFrom(block_evidence(block, state.consensus_book, shown=[index], whole_file=whole, ratio=ratio))
    for sidecar_id, content in chosen_sidecars:
        bundle.sidecars.add(id=sidecar_id, content=content)
    bundle.trust.CopyFrom(chain)
    if errata is not None:
        start = block.record.consensus_start
        later = [s for s in plan.before(errata.errata.consensus_ns).steps if s.block.record.consensus_end >= start]
        steps = chain_steps(state, later, ratio=ratio, what="errata chain step")
        bundle.correction.CopyFrom(correction_evidence(errata, steps, state.consensus_book))
    return encode_bundle(bundle)


def block_bundle(block: SignedBlock, plan: ChainPlan, *, ratio: Fraction = DEFAULT_RATIO) -> bytes:
    """The proof of every item of ``block``."""
    chain, state = build_chain(plan.before(block.record.consensus_start), ratio=ratio)
    bundle = ProofBundle(format_version=FORMAT_VERSION)
    bundle.subject.block.block_number = block.block_number
    bundle.block.CopyFrom(block_evidence(block, state.consensus_book, ratio=ratio))
    bundle.trust.CopyFrom(chain)
    return encode_bundle(bundle)


def _sidecars_of(block: SignedBlock, item: RecordItem) -> list[tuple[int, bytes]]:
    """(id, decompressed bytes) of each sidecar file holding a record of ``item``."""
    found: list[tuple[int, bytes]] = []
    for sidecar in sorted(block.sidecars, key=lambda s: s.id):
        if not any(r.consensus_ns == item.consensus_ns for r in sidecar.records):
            continue
        content = write_sidecar_file(r.raw for r in sidecar.records)
        if sha384(content) != sidecar.hash:
            raise HashMismatchError(f"sidecar file {sidecar.id} of {block.record.name} cannot be rebuilt byte for byte")
        found.append((sidecar.id, content))
    return found
