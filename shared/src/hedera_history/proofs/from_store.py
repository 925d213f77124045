"""Proofs from the store: what the query API serves (``build_transaction_proof``, ``build_block_proof``).

The store keeps what a proof needs: each block's signed bytes (items table: the record file as
signed, V6 decompressed, or its item list), its header (hashes, HAPI version, sidecar metadata) and
every agreeing node's file and metadata signatures (a signature file holds nothing else the proof
needs: its hashes are recomputed from the file). The trust chain comes from the ``address_books``
table: each ``book/`` row's effective time names the block that completed the book (the one
ending just before it), the ``change/`` rows before it back to the last FileUpdate of 0.0.102 the
blocks that built it (without change rows, as a backfill leaves them, the block files themselves);
``stakes/`` rows likewise give the stake updates worth carrying (the last before each book change
and before the subject).

A transaction an errata corrected: the ``errata_log`` row of its time names the errata in force,
whose ``f/`` row keeps the errata file and the signature files that ratified it; the proof carries
them with the chain on to the errata's time (``proofs.correction``). The block still proves the
original, found through the log when the errata removed the entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from hedera_history.books.codec import decode_recorded_changes
from hedera_history.books.updates import NODE_DETAILS_FILE
from hedera_history.errata.log import (
    Q_FILE,
    Q_IN_FORCE,
    Q_ORIGINAL,
    decode_original,
    file_row_key,
    signatures_in_row,
    time_row_key,
)
from hedera_history.errors import (
    FormatError,
    HashMismatchError,
    HistoryError,
    ObjectNotFoundError,
    ProofBookError,
    ProofUnsignedBlockError,
)
from hedera_history.formats.block import ProofKind, parse_block
from hedera_history.formats.block_record_file import BLOCK_FILE_VERSION
from hedera_history.formats.dispatch import parse_record_file, parse_signature_file
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import RecordFile, SidecarFile, SidecarRecord, SidecarType, SignatureFile
from hedera_history.formats.rebuild import signed_file_bytes
from hedera_history.formats.sidecar import write_sidecar_file
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.formats.wrapped_record import rebuild_wrapped_record
from hedera_history.proofs.build import ChainPlan, SignedBlock, block_bundle, chain_step, transaction_bundle
from hedera_history.proofs.chain import chain_change
from hedera_history.proofs.codec import encode_bundle
from hedera_history.proofs.correction import AcceptedErrata
from hedera_history.proofs.native import native_transaction_bundle
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.store import schema as s
from hedera_history.store.book_rows import BOOK, CHANGE, Q_CHANGES, STAKES
from hedera_history.store.decode import BlockFile, StoredBlock, StoredTransaction, decode_sidecar_row, guarded
from hedera_history.store.encoding import decode_value
from hedera_history.store.gateway import KeyRange, RowQuery
from hedera_history.store.keys import decode_hex16, hex16, ones_complement, prefix_end
from hedera_history.store.original_blocks import original_block
from hedera_history.store.originals import decode_item_list
from hedera_history.store.reader import HistoryReader
from hedera_history.store.time_rows import read_between
from hedera_history.verify.consensus import DEFAULT_RATIO

CHANGE_WINDOW = 1000
"""How many blocks before a book's completing block are searched for the FileUpdate that began it."""
FILE_WALK = 100
"""Without change rows, how many blocks back the files themselves are searched for it."""


def build_transaction_proof(
    reader: HistoryReader,
    transaction_id: str,
    nonce: int = 0,
    scheduled: bool = False,
    *,
    bootstrap_book: bytes,
    sidecars: bool = False,
    first_block: int = 0,
    ratio: Fraction = DEFAULT_RATIO,
) -> bytes:
    """The canonical proof bytes of the transaction (``0.0.8-1568411631-396440000``) with this
    nonce and scheduled flag; ObjectNotFoundError when no complete block holds it, ConfigError when
    the id does not parse."""
    prover = StoreProver(reader, bootstrap_book, first_block=first_block, ratio=ratio)
    query = TransactionQuery.parse(transaction_id, nonce=nonce, scheduled=scheduled)
    return prover.transaction_proof(query, sidecars=sidecars)


def build_block_proof(
    reader: HistoryReader,
    block_number: int,
    *,
    bootstrap_book: bytes,
    first_block: int = 0,
    ratio: Fraction = DEFAULT_RATIO,
) -> bytes:
    """The canonical proof bytes of every item of the block; ObjectNotFoundError when not complete."""
    return StoreProver(reader, bootstrap_book, first_block=first_block, ratio=ratio).block_proof(block_number)


@dataclass(frozen=True, slots=True)
class ProofSubject:
    """The transaction a proof is asked for, found once: its consensus time and its stored entry
    (None: an errata removed it; the errata log keeps its block)."""

    query: TransactionQuery
    consensus_ns: int
    stored: StoredTransaction | None


def find_subject(reader: HistoryReader, query: TransactionQuery) -> ProofSubject:
    """The transaction ``query`` names; ObjectNotFoundError when none is stored."""
    consensus_ns = consensus_of(reader, query)
    return ProofSubject(query, consensus_ns, reader.transaction(consensus_ns))


def native_transaction_proof(reader: HistoryReader, subject: ProofSubject) -> bytes | None:
    """The block-stream proof of a transaction stored from a native block (``proofs.native``: its
    items' paths and the block's TSS proof, read from the block's original bytes; the ledger's
    publication from a stored native block 0, when there is one), or None when its block is not a
    native block."""
    stored = subject.stored
    header = reader.get_block(stored.block_number) if stored is not None else None
    if stored is None or header is None or header.version != BLOCK_FILE_VERSION:
        return None
    refuse_unsigned(header)
    original = original_block(reader, stored.block_number)
    if original is None:
        return None
    block = parse_block(original, f"block {stored.block_number}")
    if block.wrapped:
        return None
    zero_bytes = original_block(reader, 0) if block.number != 0 else None
    zero = parse_block(zero_bytes, "block 0") if zero_bytes is not None else None
    block_zero = zero if zero is not None and not zero.wrapped and zero.number == 0 else None
    query = TransactionQuery.at(subject.consensus_ns)
    return encode_bundle(native_transaction_bundle(block, query, block_zero=block_zero))


def refuse_unsigned(block: StoredBlock) -> None:
    """ProofUnsignedBlockError for a block stored unsigned: nothing signs what a proof would lead to."""
    if block.unsigned:
        raise ProofUnsignedBlockError(
            f"block {block.number} was stored unsigned (a placeholder proof, HEDERA_HISTORY_UNSIGNED_BLOCKS): "
            "nothing signs it, no proof is given"
        )


def consensus_of(reader: HistoryReader, query: TransactionQuery) -> int:
    """The consensus time of the transaction ``query`` names; ObjectNotFoundError when none is stored."""
    if query.consensus_ns is not None:
        return query.consensus_ns
    assert query.payer is not None and query.valid_start_ns is not None
    for result in reader.transactions_by_id(query.payer, query.valid_start_ns):
        if result.nonce == query.nonce and result.scheduled == query.scheduled:
            return result.consensus_ns
    raise ObjectNotFoundError(f"transaction {query} is not in a complete block")


class StoreProver:
    def __init__(
        self,
        reader: HistoryReader,
        bootstrap_book: bytes,
        *,
        first_block: int = 0,
        ratio: Fraction = DEFAULT_RATIO,
        ship_checkpoint: bool = True,
    ) -> None:
        self.reader = reader
        self.bootstrap_book = bootstrap_book
        self.first_block = first_block
        self.ratio = ratio
        self.ship_checkpoint = ship_checkpoint

    def transaction_proof(self, query: TransactionQuery, *, sidecars: bool = False) -> bytes:
        """The proof of the transaction ``query`` names: its native block's, else its record file's."""
        subject = find_subject(self.reader, query)
        native = native_transaction_proof(self.reader, subject)
        if native is not None:
            return native
        return self.record_transaction_proof(subject, sidecars=sidecars)

    def record_transaction_proof(self, subject: ProofSubject, *, sidecars: bool = False) -> bytes:
        """The proof of a transaction found in a record file (or a wrapped record block): its
        block's signatures and the trust chain from the bootstrap book."""
        consensus_ns, stored = subject.consensus_ns, subject.stored
        errata = self.errata_in_force(consensus_ns)
        number = stored.block_number if stored is not None else self._removed_entry_block(consensus_ns, errata)
        if number is None:
            raise ObjectNotFoundError(f"transaction {subject.query} is not in a complete block")
        block = self.signed_block(number, containing=consensus_ns, with_sidecars=sidecars)
        index = next(i for i, item in enumerate(block.record.items) if item.consensus_ns == consensus_ns)
        plan = self.chain_plan(block.record.consensus_start)
        if errata is not None:
            _extend_plan(plan, self.chain_plan(errata.errata.consensus_ns))
        return transaction_bundle(block, index, plan, sidecars=sidecars, ratio=self.ratio, errata=errata)

    def errata_in_force(self, consensus_ns: int) -> AcceptedErrata | None:
        """The errata in force for the entry at ``consensus_ns`` with its kept signature files, or None."""
        time_row = self._errata_log_row(time_row_key(consensus_ns))
        in_force = time_row.get(Q_IN_FORCE)
        if in_force is None:
            return None
        errata_id = decode_value(in_force).decode("ascii", "replace")
        file_row = self._errata_log_row(file_row_key(errata_id))
        data = file_row.get(Q_FILE)
        if data is None:
            return None  # being applied: its record is written last
        signatures: dict[NodeIdentity, SignatureFile | HistoryError] = {}
        for node_id, raw in signatures_in_row(file_row).items():
            name = f"errata {errata_id} signature of node {node_id}"
            try:
                signatures[NodeIdentity(node_id=node_id)] = parse_signature_file(raw, name)
            except FormatError as e:
                signatures[NodeIdentity(node_id=node_id)] = e
        accepted = AcceptedErrata.parse(decode_value(data), f"errata {errata_id}", signatures)
        if not accepted.errata.council_signatures:
            # A network preset's errata (errata.network): its authority is the preset, which no
            # council or node key vouches for; such a proof proves the original only, as before.
            return None
        return accepted

    def _removed_entry_block(self, consensus_ns: int, errata: AcceptedErrata | None) -> int | None:
        """The block of an original entry an errata removed (the log keeps where it was)."""
        if errata is None:
            return None
        original = self._errata_log_row(time_row_key(consensus_ns)).get(Q_ORIGINAL)
        if original is None:
            return None
        entry = decode_original(decode_value(original))
        return entry.block_number if entry.present else None

    def _errata_log_row(self, key: bytes) -> dict[bytes, bytes]:
        for row in self.reader.gateway.read_rows(s.ERRATA_LOG, RowQuery(keys=(key,))):
            return {c.qualifier: c.value for c in row.cells}
        return {}

    def block_proof(self, block_number: int) -> bytes:
        block = self.signed_block(block_number)
        return block_bundle(block, self.chain_plan(block.record.consensus_start), ratio=self.ratio)

    # ---- blocks ----------------------------------------------------------------------------------

    def signed_block(self, number: int, *, containing: int | None = None, with_sidecars: bool = False) -> SignedBlock:
        """The block's record file (of a duplicate block: the one holding ``containing``, else the
        first) with its stored signatures and, when asked, its sidecar files rebuilt."""
        stored = self.reader.get_block(number)
        files = self.reader.block_files(number)
        if stored is None or not files:
            raise ObjectNotFoundError(f"block {number} is not complete")
        refuse_unsigned(stored)
        headers = stored.parts or (stored,)
        chosen: tuple[StoredBlock, RecordFile] | None = None
        for header, file in zip(headers, files, strict=True):
            record = _record_of(header, file, number)
            if containing is None or any(item.consensus_ns == containing for item in record.items):
                chosen = (header, record)
                break
        if chosen is None:
            raise ObjectNotFoundError(f"block {number} holds no item at {containing}")
        header, record = chosen
        sidecars = self._sidecar_files(record) if with_sidecars and record.sidecars else ()
        signed_bytes = None
        if header.wrapped_envelope is not None and signed_file_bytes(record) is None:
            signed_bytes = self._wrapped_record_bytes(number)
        return SignedBlock(record, number, header.signatures, sidecars, signed_bytes)

    def _wrapped_record_bytes(self, number: int) -> bytes | None:
        """A wrapped block's record file exactly as its nodes signed it, rebuilt from the block's
        original bytes (the parsed file loses a HAPI version's pre-release or build part)."""
        original = original_block(self.reader, number)
        if original is None:
            return None
        block = parse_block(original, f"block {number}")
        for proof in block.proofs:
            if proof.field == ProofKind.SIGNED_RECORD_FILE_PROOF and block.record_file is not None:
                version = proof.message(block.name).signed_record_file_proof.version
                return rebuild_wrapped_record(block.record_file, version, block.name).data
        return None

    def _sidecar_files(self, record: RecordFile) -> tuple[SidecarFile, ...]:
        """The block's sidecar files laid out again from the stored records, each checked against
        the hash the record file names."""
        by_file: dict[int, list[tuple[int, SidecarRecord]]] = {}
        for row in read_between(self.reader.gateway, s.SIDECARS, record.consensus_start, record.consensus_end + 1):
            decoded = guarded(s.SIDECARS, row, decode_sidecar_row)
            if decoded is None:
                continue
            for stored in decoded.records:
                kind = (
                    SidecarType(stored.type) if stored.type in SidecarType._value2member_map_ else SidecarType.UNKNOWN
                )
                entry = SidecarRecord(stored.consensus_ns, kind, stored.raw)
                by_file.setdefault(stored.sidecar_id, []).append((stored.index, entry))
        files: list[SidecarFile] = []
        for meta in record.sidecars:
            records = [entry for _, entry in sorted(by_file.get(meta.id, []), key=lambda pair: pair[0])]
            content = write_sidecar_file(r.raw for r in records)
            if sha384(content) != meta.hash:
                raise HashMismatchError(
                    f"sidecar file {meta.id} of {record.name}: the stored records do not rebuild it byte for byte"
                )
            files.append(SidecarFile(f"{record.name} sidecar {meta.id}", meta.id, meta.hash, tuple(records)))
        return tuple(files)

    # ---- the trust chain -------------------------------------------------------------------------

    def chain_plan(self, before_ns: int) -> ChainPlan:
        """The steps from the bootstrap book to the book and stakes in force at ``before_ns``."""
        book_times = [t for t in self._effective_times(BOOK) if t <= before_ns]
        stake_times = [t for t in self._effective_times(STAKES) if t <= before_ns]
        kept_stakes = {t for t in stake_times if _last_before(stake_times, t, book_times)}
        numbers: set[int] = set()
        for index, effective in enumerate(book_times):
            stored = self.reader.transaction(effective - 1)
            if stored is None and index == 0:
                # The book the history starts from (load, stack upload, a follower begun mid-stream
                # record it in force from their first period): no block of the stream puts it in
                # force, and the plan starts from the bootstrap book anyway.
                continue
            numbers.update(self._book_blocks(self._block_number(stored, effective - 1)))
        numbers.update(self._block_ending_at(t - 1) for t in kept_stakes)
        plan = ChainPlan(self.bootstrap_book, ship_checkpoint=self.ship_checkpoint)
        for number in sorted(numbers):
            step = chain_step(self.signed_block(number))
            if step is not None:
                plan.steps.append(step)
        return plan

    def _effective_times(self, prefix: bytes) -> list[int]:
        query = RowQuery(ranges=(KeyRange(prefix, prefix_end(prefix)),), key_only=True)
        times = [
            ones_complement(decode_hex16(row.key[len(prefix) :]))
            for row in self.reader.gateway.read_rows(s.ADDRESS_BOOKS, query)
        ]
        return sorted(times)

    def _block_ending_at(self, consensus_ns: int) -> int:
        return self._block_number(self.reader.transaction(consensus_ns), consensus_ns)

    @staticmethod
    def _block_number(stored: StoredTransaction | None, consensus_ns: int) -> int:
        if stored is None:
            raise ProofBookError(f"no stored block ends at {consensus_ns}, where the book history says one does")
        return stored.block_number

    def _book_blocks(self, completing: int) -> list[int]:
        """The blocks from the last FileUpdate of 0.0.102 up to ``completing`` that change it."""
        start = max(self.first_block, completing - CHANGE_WINDOW)
        query = RowQuery(ranges=(KeyRange(CHANGE + hex16(start), CHANGE + hex16(completing + 1)),))
        touching: list[tuple[int, bool]] = []
        for row in self.reader.gateway.read_rows(s.ADDRESS_BOOKS, query):
            cell = row.cell(s.ADDRESS_BOOKS_FAMILY, Q_CHANGES)
            if cell is None:
                continue
            changes = decode_recorded_changes(cell.value).changes.files
            mine = [change.is_append for change in changes if change.file_num == NODE_DETAILS_FILE]
            if mine:
                touching.append((decode_hex16(row.key[len(CHANGE) :]), not all(mine)))
        if not touching:
            return self._book_blocks_from_files(completing)
        began = max((number for number, replaces in touching if replaces), default=start)
        return [number for number, _ in touching if number >= began]

    def _book_blocks_from_files(self, completing: int) -> list[int]:
        """Without change rows (a backfill writes the books it found, not each block's changes):
        the blocks themselves, walked back from ``completing`` to the FileUpdate of 0.0.102."""
        found: list[int] = []
        for number in range(completing, max(self.first_block, completing - FILE_WALK) - 1, -1):
            try:
                block = self.signed_block(number)
            except ObjectNotFoundError:
                break
            changes = [chain_change(item, block.record.name) for item in block.record.items]
            files = [change.file for change in changes if change is not None and change.file is not None]
            if files:
                found.append(number)
                if any(not file.is_append for file in files):
                    break
        return sorted(found) or [completing]


def _extend_plan(plan: ChainPlan, later: ChainPlan) -> None:
    """Add the steps of ``later`` (a plan to a later time) that ``plan`` lacks, in consensus order."""
    known = {step.block.block_number for step in plan.steps}
    plan.steps.extend(step for step in later.steps if step.block.block_number not in known)
    plan.steps.sort(key=lambda step: step.block.record.consensus_start)


def _last_before(times: list[int], time: int, book_times: list[int]) -> bool:
    """``time`` is the last of ``times`` before some book change, or the last of all."""
    later = [t for t in times if t > time]
    if not later:
        return True
    return any(time < book <= later[0] for book in book_times)


def _record_of(header: StoredBlock, file: BlockFile, number: int) -> RecordFile:
    if file.kind == "file":
        # The stored bytes are the signed ones: V6 decompressed, whatever the file's name says.
        record = parse_record_file(file.data, header.name.removesuffix(".gz"))
        if record.file_hash != header.file_hash:
            raise HashMismatchError(f"block {number}: the stored file does not hash to the stored file hash")
        return record
    items = decode_item_list(file.data, header.name)
    version = header.version
    return RecordFile(
        name=header.name,
        version=version,
        hapi_version=header.hapi_version,
        items=items,
        file_hash=header.file_hash,
        metadata_hash=header.metadata_hash,
        start_running_hash=header.start_running_hash,
        end_running_hash=header.end_running_hash,
        computed_end_running_hash=None,
        previous_file_hash=header.previous_hash if version < 5 else None,
        block_number=number if version == 6 else None,
        sidecars=header.sidecars,
        object_stream_version=1 if version == 5 else None,
    )
