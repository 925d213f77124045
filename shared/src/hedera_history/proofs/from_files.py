"""Proofs from stream files on disk: record, signature and sidecar files and a bootstrap book.

No store and no network: the periods under a directory are verified in order from the bootstrap
book (``verify.stream``), the blocks that change 0.0.102 or the stakes become the trust chain, and
a transaction or block of any verified period can then be proven. Errata files under the directory
(in the bucket layout, ``errata.errata_paths``) are taken as applied: a transaction one corrects is
proven with it and the node signature files beside it (``proofs.correction``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path

from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.errata.errata_paths import ERRATA_SUFFIX, is_errata_path, parse_errata_path
from hedera_history.errata.ingest import collect_node_signatures
from hedera_history.errors import ObjectNotFoundError
from hedera_history.proofs.build import ChainPlan, SignedBlock, block_bundle, chain_step, transaction_bundle
from hedera_history.proofs.correction import AcceptedErrata, in_force
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.sources.local import LocalSource
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.consensus import DEFAULT_RATIO
from hedera_history.verify.stream import verify_stream


class VerifiedBlocksProver:
    """Verified blocks in consensus order from a checkpoint book, ready to prove any of their
    transactions."""

    def __init__(
        self,
        blocks: Iterable[VerifiedBlock],
        checkpoint: bytes,
        *,
        ratio: Fraction = DEFAULT_RATIO,
        ship_checkpoint: bool = True,
        errata: Sequence[AcceptedErrata] = (),
    ) -> None:
        self.ratio = ratio
        self.errata = tuple(errata)
        self.blocks: list[SignedBlock] = []
        self.plan = ChainPlan(checkpoint, ship_checkpoint=ship_checkpoint)
        for verified in blocks:
            block = SignedBlock(verified.record, verified.block_number, verified.signatures, verified.sidecars)
            self.blocks.append(block)
            step = chain_step(block)
            if step is not None:
                self.plan.steps.append(step)

    def transaction_proof(self, query: TransactionQuery, *, sidecars: bool = False) -> bytes:
        block, index = self.find(query)
        errata = in_force(self.errata, block.record.items[index].consensus_ns)
        return transaction_bundle(block, index, self.plan, sidecars=sidecars, ratio=self.ratio, errata=errata)

    def block_proof(self, block_number: int) -> bytes:
        for block in self.blocks:
            if block.block_number == block_number:
                return block_bundle(block, self.plan, ratio=self.ratio)
        raise ObjectNotFoundError(f"block {block_number} is not among the verified blocks")

    def find(self, query: TransactionQuery) -> tuple[SignedBlock, int]:
        """The block and index of the item the query names."""
        for block, index, record in self._records():
            if query.matches(record, block.record.items[index].consensus_ns):
                return block, index
        raise ObjectNotFoundError(f"transaction {query} is not among the verified blocks")

    def _records(self) -> Iterator[tuple[SignedBlock, int, hapi.TransactionRecord]]:
        for block in self.blocks:
            for index, item in enumerate(block.record.items):
                yield block, index, hapi.TransactionRecord.FromString(item.record_bytes)


class DirectoryProver(VerifiedBlocksProver):
    """The periods under one directory, verified in order from the bootstrap book ``book``."""

    def __init__(
        self,
        directory: Path,
        book: bytes,
        *,
        start_block: int = 0,
        ratio: Fraction = DEFAULT_RATIO,
        ship_checkpoint: bool = True,
    ) -> None:
        results = verify_stream(
            find_local_periods(directory), parse_address_book(book), ratio=ratio, start_block=start_block
        )
        verified = (result.report.block for result in results if result.report.block is not None)
        errata = errata_under(directory)
        super().__init__(verified, book, ratio=ratio, ship_checkpoint=ship_checkpoint, errata=errata)


def errata_under(directory: Path) -> list[AcceptedErrata]:
    """Every errata file under ``directory`` (bucket layout) with its nodes' signature files."""
    source = LocalSource(str(directory))
    found: list[AcceptedErrata] = []
    for path in sorted(directory.rglob(f"*{ERRATA_SUFFIX}")):
        relative = path.relative_to(directory).as_posix()
        if not is_errata_path(relative):
            continue
        parsed = parse_errata_path(relative)
        found.append(AcceptedErrata.parse(path.read_bytes(), relative, collect_node_signatures(source, parsed)))
    return found
