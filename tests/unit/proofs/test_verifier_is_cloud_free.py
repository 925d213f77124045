"""The verifier is a client's own module: importing it loads no cloud client, store or pipeline."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("google.cloud.", "google.api_core", "boto3", "botocore", "pyspark", "grpc", "requests", "click")
FORBIDDEN_PROJECT = ("hedera_history.store", "hedera_history.pipeline", "hedera_history.sources", "hedera_history.api")


def test_importing_the_verifier_loads_nothing_of_the_cloud() -> None:
    code = (
        "import json, sys\n"
        "import hedera_history.proofs.verify, hedera_history.proofs.trust, hedera_history.proofs.codec\n"
        "import hedera_history.proofs.verify_any\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
    assert [m for m in loaded if m.startswith(FORBIDDEN)] == []
    assert [m for m in loaded if m.startswith(FORBIDDEN_PROJECT)] == []
