"""Where the real Hedera data lives (``HEDERA_HISTORY_TEST_DATA`` overrides the default)."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "hedera"


def real_data_dir() -> Path:
    """The real record, sidecar and signature files, address books and errata data."""
    return Path(os.environ.get("HEDERA_HISTORY_TEST_DATA", str(DEFAULT_DATA_DIR)))


DEFAULT_MIRROR_OPENAPI = Path(__file__).resolve().parents[2] / "shared" / "data" / "mirror-node" / "openapi.yml"


def mirror_openapi_path() -> Path:
    """The reference mirror node's OpenAPI document (``HEDERA_HISTORY_MIRROR_OPENAPI`` overrides)."""
    return Path(os.environ.get("HEDERA_HISTORY_MIRROR_OPENAPI", str(DEFAULT_MIRROR_OPENAPI)))
