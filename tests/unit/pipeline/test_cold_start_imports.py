"""A function instance's cold start imports no Cloud client: each is imported on first use.

The clients take most of a cold start (bench/cold_start_bench.py); a function that only answers a
health check, or a call that never reaches a client, does not pay for them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FUNCTIONS = Path(__file__).resolve().parents[3] / "functions"
CLIENTS = ("google.cloud.bigtable", "google.cloud.pubsub_v1", "google.cloud.storage", "boto3", "pyspark")
SCRIPT = (
    f"import json, sys\nimport main\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith({CLIENTS!r}))))\n"
)


def import_main_and_print(function: str, script: str) -> object:
    """What ``script`` prints as JSON (last line) after importing the function's ``main`` fresh."""
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=FUNCTIONS / function,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("function", ["ingest", "store", "query", "follow"])
def test_importing_a_function_loads_no_cloud_client(function: str) -> None:
    assert import_main_and_print(function, SCRIPT) == []


# What a function never needs, so its cold start never loads it (the packages import no modules in
# their __init__, and each runtime builder imports only its own context's path).
NOT_NEEDED = {
    "query": ("hedera_history.store.writer", "hedera_history.derived.applier", "hedera_history.pipeline.ingest"),
    "store": ("hedera_history.pipeline.ingest", "hedera_history.pipeline.sweep"),
    "ingest": ("hedera_history.pipeline.sweep", "hedera_history.errata.apply"),
    "follow": ("hedera_history.pipeline.sweep", "hedera_history.errata.apply"),
}


@pytest.mark.parametrize("function", sorted(NOT_NEEDED))
def test_importing_a_function_loads_nothing_it_never_needs(function: str) -> None:
    loaded = f"sorted(m for m in {NOT_NEEDED[function]!r} if m in sys.modules)"
    script = f"import json, sys\nimport main\nprint(json.dumps({loaded}))\n"
    assert import_main_and_print(function, script) == []
