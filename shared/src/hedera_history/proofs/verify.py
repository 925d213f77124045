"""Check a proof bundle offline against a trusted book: a verdict, or a typed reason.

Needs only hashlib, cryptography, protobuf and the project's format readers (no cloud client), so
a client can run it on its own. Steps, each of which raises a leaf of ``ProofError``:

1. decode: canonical protobuf (or its JSON rendering) of a known version (``ProofFormatError``);
2. the checkpoint book: its SHA-384 is the trusted hash (``ProofBookError``);
3. each trust chain step, in consensus order, is a proven block (below) under the book and stakes
   in force before it, and changes 0.0.102 or the stakes (``ProofBookError``);
4. the block: the hash its signatures are over is recomputed — the file hash of a whole file, or
   for a V5/V6 item run the end running hash from the running hash before the run, then the
   metadata hash from it and the header fields — and compared (``ProofHashMismatchError``); every
   signature verifies with its node's key (``ProofSignatureError``) and the signers hold at least
   the consensus share of the stake in force (``ProofStakeError``);
5. the subject: the transaction (id, nonce, scheduled, consensus time) is among the proven items,
   or the items are the whole block (``ProofSubjectError``); sidecar files hash to what the record
   file names (``ProofHashMismatchError``);
6. a corrected transaction: the errata in force and its authority (``proofs.verify_errata``,
   leaves of ``ProofErrataError``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from fractions import Fraction

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.books.address_book import AddressBook
from hedera_history.books.packed import unpack_book
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import (
    AddressBookError,
    FormatError,
    ProofBookError,
    ProofFormatError,
    ProofHashMismatchError,
    ProofSignatureError,
    ProofStakeError,
    ProofSubjectError,
)
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.hashing import HASH_SIZE, item_hash, next_running_hash, sha384, v6_metadata_hash
from hedera_history.formats.items import parse_record_item
from hedera_history.formats.parsed_files import RecordItem, SidecarMetadata
from hedera_history.formats.record_v5 import v5_metadata_hash
from hedera_history.formats.sidecar import parse_sidecar_content
from hedera_history.proofs.chain import BookChain
from hedera_history.proofs.codec import decode_bundle
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify_errata import CorrectionVerdict, verify_correction
from hedera_history.proto_gen.proof_pb2 import BlockEvidence, ProofBundle, StreamHeader
from hedera_history.verify.consensus import DEFAULT_RATIO, meets_ratio, required_stake

RECORD_VERSIONS = (1, 2, 5, 6)


@dataclass(frozen=True, slots=True)
class ProvenBlock:
    """What a block evidence proved."""

    version: int
    signed_hash: bytes
    whole: bool
    """Every item of the file is proven (the whole file, or a run from the file's start)."""
    items: tuple[RecordItem, ...]
    """The items shown in full, in file order."""
    block_number: int | None
    """Signed by V6 files only."""
    sidecars: tuple[SidecarMetadata, ...]
    """The sidecar metadata of a whole V6 file."""
    signers: tuple[int, ...]
    stake: int
    total_stake: int


@dataclass(frozen=True, slots=True)
class Verdict:
    subject: str
    block: ProvenBlock
    book_updates: int
    stake_updates: int
    sidecar_records: int = 0
    correction: CorrectionVerdict | None = None
    """Set when the transaction was corrected by an errata (the block proves the original)."""

    def line(self) -> str:
        block = self.block
        number = f"block {block.block_number}" if block.block_number is not None else "its block"
        where = "" if self.subject.startswith("block ") else f" in {number}"
        sidecars = f", {self.sidecar_records} sidecar record(s)" if self.sidecar_records else ""
        corrected = f"; {self.correction.phrase()}" if self.correction is not None else ""
        return (
            f"verified: {self.subject}{where} (record file V{block.version}, signed hash "
            f"{block.signed_hash.hex()[:16]}…){sidecars}; signed by {len(block.signers)} node(s) holding "
            f"{block.stake} of {block.total_stake} stake; book from the trusted one through "
            f"{self.book_updates} update(s), {self.stake_updates} stake update(s){corrected}"
        )


def verify_proof(data: bytes, trust: Trust, *, ratio: Fraction = DEFAULT_RATIO) -> Verdict:
    """The verdict on a bundle's bytes (canonical protobuf or JSON), or a ``ProofError`` leaf."""
    return verify_bundle(decode_bundle(data), trust, ratio=ratio)


def verify_bundle(bundle: ProofBundle, trust: Trust, *, ratio: Fraction = DEFAULT_RATIO) -> Verdict:
    chain = BookChain(checkpoint_book(bundle, trust))
    for index, step in enumerate(bundle.trust.steps):
        what = f"trust chain step {index}"
        proven = verify_block_evidence(step, chain.consensus_book, ratio=ratio, what=what)
        chain.apply_step(proven.items, proven.block_number, what)
    if not bundle.HasField("block"):
        raise ProofFormatError("the bundle carries no block evidence (a block-stream proof: proofs.verify_any)")
    block = verify_block_evidence(bundle.block, chain.consensus_book, ratio=ratio, what="block")
    chain.check_after(block.items, block.block_number, "block")
    subject, sidecar_records = _check_subject(bundle, block)
    book_updates, stake_updates = chain.book_updates, chain.stake_updates
    correction = None
    if bundle.HasField("correction"):
        if bundle.subject.WhichOneof("kind") != "transaction":
            raise ProofFormatError("only a transaction proof carries a correction")

        def prove_step(step: BlockEvidence, book: AddressBook, what: str) -> tuple[tuple[RecordItem, ...], int | None]:
            proven = verify_block_evidence(step, book, ratio=ratio, what=what)
            return proven.items, proven.block_number

        consensus_ns = bundle.subject.transaction.consensus_ns
        correction = verify_correction(bundle.correction, chain, consensus_ns, trust.council, prove_step)
    return Verdict(subject, block, book_updates, stake_updates, sidecar_records, correction)


def checkpoint_book(bundle: ProofBundle, trust: Trust) -> AddressBook:
    """The chain's starting book: the bundle's checkpoint (or the client's own book), whose
    SHA-384 must be the trusted hash."""
    shipped = bundle.trust
    if shipped.checkpoint_book and shipped.HasField("checkpoint_packed"):
        raise ProofFormatError("the checkpoint book comes both as it is and packed")
    if shipped.HasField("checkpoint_packed"):
        data: bytes | None = unpack_book(shipped.checkpoint_packed)
    else:
        data = shipped.checkpoint_book or trust.book
    if data is None:
        raise ProofBookError("the proof carries no checkpoint book and the client trusts only a hash")
    if sha384(data) != trust.book_hash:
        raise ProofBookError(
            f"checkpoint book: SHA-384 {sha384(data).hex()[:16]}… is not the trusted {trust.book_hash.hex()[:16]}…"
        )
    try:
        return parse_address_book(data, "checkpoint book")
    except AddressBookError as e:
        raise ProofBookError(f"checkpoint book: {e.reason}") from e


def verify_block_evidence(
    evidence: BlockEvidence, book: AddressBook, *, ratio: Fraction = DEFAULT_RATIO, what: str = "block"
) -> ProvenBlock:
    """Recompute the signed hash, check every signature and the stake they hold."""
    version = evidence.record_version
    if version not in RECORD_VERSIONS:
        raise ProofFormatError(f"{what}: record version: expected 1, 2, 5 or 6 but got {version}")
    content = evidence.WhichOneof("content")
    if content == "record_file":
        proven = _whole_file(evidence, what)
    elif content == "items":
        proven = _item_run(evidence, what)
    else:
        raise ProofFormatError(f"{what}: neither a record file nor an item run")
    if proven.signed_hash != evidence.signed_hash:
        raise ProofHashMismatchError(
            f"{what}: recomputed {'file' if proven.whole and content == 'record_file' else 'metadata'} hash "
            f"{proven.signed_hash.hex()[:16]}… is not the signed {evidence.signed_hash.hex()[:16] or '(none)'}…"
        )
    signers, stake = _check_signatures(evidence, book, what)
    if not meets_ratio(stake, book.total_stake, ratio):
        raise ProofStakeError(
            f"{what}: signers hold stake {stake} of {book.total_stake}: expected at least {ratio} of it "
            f"({required_stake(book.total_stake, ratio)})"
        )
    return ProvenBlock(
        proven.version,
        proven.signed_hash,
        proven.whole,
        proven.items,
        proven.block_number,
        proven.sidecars,
        signers,
        stake,
        book.total_stake,
    )


@dataclass(frozen=True, slots=True)
class _Recomputed:
    version: int
    signed_hash: bytes
    whole: bool
    items: tuple[RecordItem, ...]
    block_number: int | None
    sidecars: tuple[SidecarMetadata, ...] = ()


def _whole_file(evidence: BlockEvidence, what: str) -> _Recomputed:
    if evidence.HasField("header"):
        raise ProofFormatError(f"{what}: a whole record file comes without a separate header")
    if evidence.record_file[:4] != struct.pack(">i", evidence.record_version):
        # the signed bytes themselves (V6 decompressed): a gzip wrapper's header is signed by nobody
        raise ProofFormatError(f"{what}: the record file does not start with its version {evidence.record_version}")
    try:
        record = parse_record_file(evidence.record_file, what)
    except FormatError as e:
        raise ProofFormatError(f"{what}: record file: {e.reason}") from e
    if record.version != evidence.record_version:
        raise ProofFormatError(f"{what}: record version {evidence.record_version} but the file is V{record.version}")
    if record.version >= 5 and record.computed_end_running_hash != record.end_running_hash:
        raise ProofHashMismatchError(f"{what}: the items do not lead to the file's end running hash")
    if not record.items:
        raise ProofFormatError(f"{what}: the record file holds no item")
    return _Recomputed(record.version, record.file_hash, True, record.items, record.block_number, record.sidecars)


def _item_run(evidence: BlockEvidence, what: str) -> _Recomputed:
    version = evidence.record_version
    if version not in (5, 6):
        raise ProofFormatError(f"{what}: an item run proves V5 or V6 files only, not V{version}")
    if not evidence.HasField("header"):
        raise ProofFormatError(f"{what}: an item run needs the header fields of its metadata hash")
    header = evidence.header
    start = _hash48(header.start_running_hash, f"{what}: start running hash")
    running = _hash48(evidence.items.running_hash_before, f"{what}: running hash before the run")
    items, running, only_items = _run_entries(evidence, running, what)
    if not items:
        raise ProofFormatError(f"{what}: the item run shows no item")
    signed, number = _metadata_hash(version, header, start, running, what)
    whole = only_items and evidence.items.running_hash_before == start
    return _Recomputed(version, signed, whole, tuple(items), number)


def _run_entries(evidence: BlockEvidence, running: bytes, what: str) -> tuple[list[RecordItem], bytes, bool]:
    """The run's items, the running hash after its last entry, and whether every entry was an item
    (not a stretch of item hashes standing in for items left out)."""
    items: list[RecordItem] = []
    only_items = True
    for index, entry in enumerate(evidence.items.entries):
        kind = entry.WhichOneof("entry")
        if kind == "item":
            transaction, record = entry.item.transaction, entry.item.record
            try:
                items.append(parse_record_item(transaction, record, f"items[{index}]", what))
            except FormatError as e:
                raise ProofFormatError(f"{what}: {e.reason}") from e
            running = next_running_hash(running, item_hash(record, transaction))
        elif kind == "item_hashes":
            hashes = entry.item_hashes
            if not hashes or len(hashes) % HASH_SIZE:
                raise ProofFormatError(f"{what}: entry {index}: item hashes are not whole 48-byte hashes")
            only_items = False
            for offset in range(0, len(hashes), HASH_SIZE):
                running = next_running_hash(running, hashes[offset : offset + HASH_SIZE])
        else:
            raise ProofFormatError(f"{what}: entry {index} is empty")
    return items, running, only_items


def _metadata_hash(version: int, header: StreamHeader, start: bytes, end: bytes, what: str) -> tuple[bytes, int | None]:
    """The hash the nodes signed for a V5 or V6 file running from ``start`` to ``end``, and the
    block number it signs (V6 only)."""
    hapi_version = (header.hapi_major, header.hapi_minor, header.hapi_patch)
    if version == 6:
        if header.object_stream_version:
            raise ProofFormatError(f"{what}: a V6 header has no object stream version")
        return v6_metadata_hash(hapi_version, start, end, header.block_number), header.block_number
    if header.block_number:
        raise ProofFormatError(f"{what}: a V5 header has no block number")
    return v5_metadata_hash(hapi_version, header.object_stream_version, start, end), None


def _hash48(value: bytes, what: str) -> bytes:
    if len(value) != HASH_SIZE:
        raise ProofFormatError(f"{what}: expected {HASH_SIZE} bytes but got {len(value)}")
    return value


def _check_signatures(evidence: BlockEvidence, book: AddressBook, what: str) -> tuple[tuple[int, ...], int]:
    signers: list[int] = []
    stake = 0
    for signature in evidence.signatures:
        node_id = signature.node_id
        if signers and node_id <= signers[-1]:
            raise ProofFormatError(f"{what}: signatures must come once per node, by node id")
        node = book.by_node_id(node_id)
        if node is None:
            raise ProofSignatureError(f"{what}: node {node_id} is not in the book in force")
        try:
            node.public_key.verify(signature.signature, evidence.signed_hash, padding.PKCS1v15(), hashes.SHA384())
        except InvalidSignature as e:
            raise ProofSignatureError(
                f"{what}: the signature of node {node_id} ({node.account}) does not verify", node=node.account
            ) from e
        signers.append(node_id)
        stake += node.stake
    return tuple(signers), stake


def _check_subject(bundle: ProofBundle, block: ProvenBlock) -> tuple[str, int]:
    kind = bundle.subject.WhichOneof("kind")
    if kind == "block":
        number = bundle.subject.block.block_number
        if not block.whole:
            raise ProofSubjectError("a block proof must prove every item of the block")
        if block.block_number is not None and block.block_number != number:
            raise ProofSubjectError(f"the proof is for block {number} but the file signs block {block.block_number}")
        if bundle.sidecars:
            raise ProofFormatError("a block proof carries no sidecar files")
        unsigned = "" if block.block_number is not None else ", its number not signed before V6"
        return f"block {number}, {len(block.items)} item(s){unsigned}", 0
    if kind != "transaction":
        raise ProofFormatError("the bundle names no subject")
    subject = bundle.subject.transaction
    found = [item for item in block.items if item.consensus_ns == subject.consensus_ns]
    if not found:
        raise ProofSubjectError(f"no proven item has the consensus time {subject.consensus_ns}")
    record = _record(found[0].record_bytes)
    transaction_id = transaction_id_text(record.transactionID)
    actual = (transaction_id, record.transactionID.nonce, record.transactionID.scheduled)
    asked = (subject.transaction_id, subject.nonce, subject.scheduled)
    if actual != asked:
        raise ProofSubjectError(f"the proven item is transaction {actual}, not the one named {asked}")
    sidecar_records = _check_sidecars(bundle, block, subject.consensus_ns)
    return f"transaction {transaction_id} at {subject.consensus_ns}", sidecar_records


def _check_sidecars(bundle: ProofBundle, block: ProvenBlock, consensus_ns: int) -> int:
    if not bundle.sidecars:
        return 0
    if bundle.block.WhichOneof("content") != "record_file" or block.version != 6:
        raise ProofFormatError("sidecar files are proven through a whole V6 record file")
    named = {meta.id: meta for meta in block.sidecars}
    count = 0
    seen: set[int] = set()
    for evidence in bundle.sidecars:
        meta = named.get(evidence.id)
        if meta is None or evidence.id in seen:
            raise ProofSubjectError(f"the record file names no sidecar file {evidence.id} (or it comes twice)")
        seen.add(evidence.id)
        if sha384(evidence.content) != meta.hash:
            raise ProofHashMismatchError(
                f"sidecar file {evidence.id}: its SHA-384 is not the hash the record file names"
            )
        try:
            sidecar = parse_sidecar_content(evidence.content, f"sidecar {evidence.id}", id=evidence.id)
        except FormatError as e:
            raise ProofFormatError(f"sidecar file {evidence.id}: {e.reason}") from e
        mine = sum(1 for record in sidecar.records if record.consensus_ns == consensus_ns)
        if not mine:
            raise ProofSubjectError(f"sidecar file {evidence.id} holds no record of the transaction")
        count += mine
    return count


def _record(record_bytes: bytes) -> hapi.TransactionRecord:
    try:
        return hapi.TransactionRecord.FromString(record_bytes)
    except DecodeError as e:  # already parsed once: unreachable unless protobuf changes its mind
        raise ProofFormatError(f"record does not decode: {e}") from e


def transaction_id_text(transaction_id: hapi.TransactionID) -> str:
    """``shard.realm.num-seconds-nanos`` (nanos in 9 digits), the reference's form of a transaction id."""
    account = transaction_id.accountID
    start = transaction_id.transactionValidStart
    return f"{account.shardNum}.{account.realmNum}.{account.accountNum}-{start.seconds}-{start.nanos:09d}"
