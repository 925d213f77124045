"""The books package is pure: importing all of it loads no store, cloud client or Spark."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("hedera_history.store", "hedera_history.sources", "google.cloud.", "boto3", "botocore", "pyspark")
"""``google.cloud.``: any client; the bare ``google.cloud`` namespace comes with protobuf's path setup."""
MODULES = ("address_book", "bootstrap", "codec", "packed", "parse", "stakes", "updates")
SCRIPT = (
    "import importlib, json, sys\n"
    f"for name in {MODULES!r}:\n"
    "    importlib.import_module('hedera_history.books.' + name)\n"
    f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r}))))\n"
)


def test_importing_the_books_package_loads_no_io() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=300)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
