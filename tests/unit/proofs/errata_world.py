"""A generated stream whose key rotates halfway, with two signed errata issued after the rotation:
one replacing a transaction of block 1 (UPDATE), one removing a transaction of block 2 (DELETE).
Written to disk (stream and errata objects, the bucket layout) and applied to a store by the
errata ingest, so both proof builders can be asked for the corrected transactions.

The nodes ratify with the rotated key, so a proof must carry the rotation to the errata's time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.errata.codec import parse_errata_file
from hedera_history.errata.errata_file import ErrataFile
from hedera_history.errata.ingest import ErrataStatus, process_errata_object
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.errata import build_errata, errata_objects
from hedera_history.gen.keys import ed25519_public_bytes
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.proofs.trust import Trust
from hedera_history.sources.local import LocalSource
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.gateway import ConditionalGateway
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.unit.errata.fakes import VersionedGateway
from tests.unit.store.fakes import ConditionalMemoryGateway

CONFIG = GeneratorConfig(nodes=4, periods=8, transactions=6, seed=11)
"""As the rotating stream of ``conftest``: one node's key rotates through a 0.0.102 update halfway."""


class ErrataGateway(VersionedGateway, ConditionalMemoryGateway):
    """Corrections hide the block's cells (versions), book history rows are claimed (check-and-set)."""


@dataclass(frozen=True)
class AppliedErrata:
    errata: ErrataFile
    path: str
    original: RecordItem
    """The signed item at the time of error."""
    correct: RecordItem | None


@dataclass
class ErrataWorld:
    stream: GeneratedStream
    root: Path
    blocks: list[VerifiedBlock]
    update: AppliedErrata
    delete: AppliedErrata
    settings: Settings
    gateway: ConditionalGateway = field(repr=False)
    signers: tuple[int, ...] = ()
    """The node ids that ratify both errata, the one whose key rotated among them."""

    @property
    def book(self) -> bytes:
        return self.stream.address_book

    @property
    def council(self) -> str:
        return ",".join(ed25519_public_bytes(key).hex() for key in self.stream.keys.council)

    def trust(self) -> Trust:
        return Trust.of_book(self.book).with_council(self.council)

    def book_at(self, consensus_ns: int) -> bytes:
        block = next(b for b in reversed(self.blocks) if b.record.consensus_start <= consensus_ns)
        return self.stream.book_for_block(block.block_number).book


def corrected_record(item: RecordItem) -> RecordItem:
    """The item with another memo in its record (what the nodes should have exported)."""
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    record.memo = "corrected by an errata"
    return RecordItem(item.transaction_bytes, record.SerializeToString(), item.consensus_ns)


def build_errata_world(
    root: Path, open_store: Callable[[Settings], ConditionalGateway] = lambda _: ErrataGateway()
) -> ErrataWorld:
    """The world under ``root``, stored through the gateway ``open_store`` gives for the settings
    (the council configured); by default in memory."""
    stream = generate_stream(CONFIG)
    write_stream(stream, root)
    bootstrap = parse_address_book(stream.address_book)
    blocks = [r.report.block for r in verify_stream(find_local_periods(root), bootstrap) if r.report.block is not None]
    assert len(blocks) == CONFIG.periods
    last = blocks[-1].record
    rotated = _rotated_node(stream, blocks[-1].block_number)
    # three of the four equal stakes ratify: the node whose key rotated and two others
    signers = [rotated, *[n.node_id for n in stream.nodes if n.node_id != rotated][:2]]
    issued = []
    for role, number, offset in (("update", 1, 1), ("delete", 2, 2)):
        original = item_with_its_own_id(blocks, number)
        correct = corrected_record(original) if role == "update" else None
        errata_ns = last.consensus_start + offset
        data, signatures = build_errata(
            stream,
            consensus_ns=errata_ns,
            time_of_error=original.consensus_ns,
            correct_item=correct,
            node_signers=signers,
        )
        objects = errata_objects(stream, errata_ns, data, signatures)
        for path, content in objects.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(content)
        path = next(p for p in objects if p.endswith(".errata"))
        issued.append(AppliedErrata(parse_errata_file(data, path), path, original, correct))
    council = ",".join(ed25519_public_bytes(key).hex() for key in stream.keys.council)
    settings = Settings.from_env({}, errata_council_keys=council)
    gateway = open_store(settings)
    assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
    history = AddressBookHistory(gateway, bootstrap)
    for block in blocks:
        history.record_block(block)
    history.advance(blocks[-1].block_number)
    world = ErrataWorld(stream, root, blocks, issued[0], issued[1], settings, gateway, tuple(sorted(signers)))
    for applied in issued:
        book = parse_address_book(world.book_at(applied.errata.consensus_ns))
        outcome = process_errata_object(LocalSource(str(root)), applied.path, settings, gateway, book)
        assert outcome.status is ErrataStatus.APPLIED, outcome.reasons
    return world


def item_with_its_own_id(blocks: list[VerifiedBlock], number: int) -> RecordItem:
    """An item of block ``number``, not its first, whose transaction id no other item has (the
    stream repeats some ids, as duplicates do)."""

    def tid(item: RecordItem) -> bytes:
        return bytes(hapi.TransactionRecord.FromString(item.record_bytes).transactionID.SerializeToString())

    counts: dict[bytes, int] = {}
    for block in blocks:
        for item in block.record.items:
            counts[tid(item)] = counts.get(tid(item), 0) + 1
    return next(item for item in blocks[number].record.items[1:] if counts[tid(item)] == 1)


def _rotated_node(stream: GeneratedStream, last_block: int) -> int:
    first = parse_address_book(stream.book_for_block(0).book)
    last = parse_address_book(stream.book_for_block(last_block).book)
    keys = {node.node_id: node.public_key_der for node in last.nodes}
    changed = [node.node_id for node in first.nodes if keys.get(node.node_id) != node.public_key_der]
    assert len(changed) == 1, changed
    return changed[0]
