"""Shared fixtures. Emulator fixtures live in tests/fixtures/emulators.py (a pytest plugin)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "hedera"


def real_data_dir() -> Path:
    """The real record, sidecar and signature files (``HEDERA_HISTORY_TEST_DATA`` overrides)."""
    return Path(os.environ.get("HEDERA_HISTORY_TEST_DATA", str(DEFAULT_DATA_DIR)))


@pytest.fixture(scope="session")
def hedera_data() -> Path:
    """The real data folder. Missing data fails the test (never skips): conformance must run."""
    path = real_data_dir()
    if not (path / "v6").is_dir() or not (path / "v5").is_dir():
        pytest.fail(
            f"real Hedera test data not found at {path}; set HEDERA_HISTORY_TEST_DATA to the folder "
            "holding v5/, v6/, signature/ and addressbook/"
        )
    return path
