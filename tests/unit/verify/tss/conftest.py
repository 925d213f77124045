"""The real TSS-signed blocks, read once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.verify.tss import LedgerPublication

from tests.conformance.tss_blocks import TssBlock, ledger_publication, load_block


@pytest.fixture(scope="session")
def tss_blocks(hedera_data: Path) -> tuple[TssBlock, ...]:
    return tuple(load_block(hedera_data, number) for number in range(6))


@pytest.fixture(scope="session")
def publication(tss_blocks: tuple[TssBlock, ...]) -> LedgerPublication:
    return ledger_publication(tss_blocks[0])
