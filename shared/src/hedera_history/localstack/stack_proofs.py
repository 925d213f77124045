"""Proofs from the local stack's store: its recorded state names the emulator, the book and the first block."""

from __future__ import annotations

from pathlib import Path

from hedera_history.config import Settings
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.localstack.stack_state import require_state
from hedera_history.proofs.from_store import StoreProver
from hedera_history.proofs.open import store_prover
from hedera_history.store.reader import HistoryReader


def stack_prover(
    state_dir: Path, settings: Settings, *, address_book: str = "", ship_checkpoint: bool = True
) -> StoreProver:
    """Proofs from the stack recorded in ``state_dir``; its bootstrap book unless ``address_book``."""
    state = require_state(state_dir)
    return store_prover(
        HistoryReader(open_gateway_for(state)),
        settings,
        book_location=address_book or state.address_book,
        first_block=state.settings().first_block,
        ship_checkpoint=ship_checkpoint,
    )
