"""Which subpackages of ``hedera_history`` are tooling; every other one is runtime.

Runtime is what the deployment runs: the functions, the query API, the backfill on Spark. Tooling
runs on a developer's or an operator's machine: the command line, the stream generator, the local
stack and the deploy tooling. Runtime never imports tooling (``tests/unit/test_layers.py`` reads
every import to check it), so the function sources are built without it (``deploy.build``).
"""

from __future__ import annotations

TOOLING = ("cli", "deploy", "gen", "localstack")
"""The tooling subpackages; a new subpackage is runtime unless it is named here."""
PURE = ("formats", "verify")
"""Runtime subpackages that do no I/O: they parse and check bytes they are handed."""
