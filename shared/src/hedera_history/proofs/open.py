"""Provers opened from the settings: over a store (the deployment's, or any reader's) or over stream
files on disk, each with the bootstrap book, first block and consensus ratio the settings name."""

from __future__ import annotations

from pathlib import Path

from hedera_history.config import Settings
from hedera_history.proofs.from_files import DirectoryProver
from hedera_history.proofs.from_store import StoreProver
from hedera_history.sources.address_book_file import read_address_book_bytes
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.consensus import parse_consensus_ratio


def store_prover(
    reader: HistoryReader,
    settings: Settings,
    *,
    book_location: str = "",
    first_block: int | None = None,
    ship_checkpoint: bool = True,
) -> StoreProver:
    """Proofs from ``reader``'s store; the book at ``book_location`` (default the configured one) and
    ``first_block`` (default the configured one) are where its chains start."""
    return StoreProver(
        reader,
        read_address_book_bytes(book_location or settings.address_book, settings),
        first_block=settings.first_block if first_block is None else first_block,
        ratio=parse_consensus_ratio(settings.consensus_ratio),
        ship_checkpoint=ship_checkpoint,
    )


def deployment_prover(settings: Settings, *, ship_checkpoint: bool = True) -> StoreProver:
    """Proofs from the Bigtable instance the settings name."""
    from hedera_history.store.bigtable_client import open_gateway  # noqa: PLC0415 (gRPC: only when asked)

    return store_prover(HistoryReader(open_gateway(settings)), settings, ship_checkpoint=ship_checkpoint)


def directory_prover(directory: Path, settings: Settings, *, ship_checkpoint: bool = True) -> DirectoryProver:
    """Proofs from the stream files under ``directory`` (verified first), numbered from the configured start block."""
    return DirectoryProver(
        directory,
        read_address_book_bytes(settings.address_book, settings),
        start_block=settings.start_block,
        ratio=parse_consensus_ratio(settings.consensus_ratio),
        ship_checkpoint=ship_checkpoint,
    )
