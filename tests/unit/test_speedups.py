"""The compiled core is there where it must be (``make test`` sets ``speedups.REQUIRE_ENV``), and
its absence is a fallback with one warning, not a failure."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from hedera_history import speedups


def test_the_compiled_core_is_built_where_it_is_required() -> None:
    if os.environ.get(speedups.REQUIRE_ENV) != "1":
        pytest.skip(f"{speedups.REQUIRE_ENV} is not set: the pure-Python fallback is allowed here")
    assert speedups.available, (
        "hedera_history._speedups did not build on this machine (a C compiler and the Python headers "
        "are needed): reinstall with `pip install -e .` and read its build output"
    )
    assert speedups.v6_item_lists is not None and speedups.mutation_entries is not None


def test_without_the_compiled_core_the_python_code_runs_after_one_warning() -> None:
    # A fresh interpreter in which the extension cannot be imported.
    script = textwrap.dedent(
        """
        import logging, sys
        sys.modules["hedera_history._speedups"] = None
        records = []
        class Keep(logging.Handler):
            def emit(self, record):
                records.append(record)
        logging.getLogger("hedera_history.speedups").addHandler(Keep())
        from hedera_history import speedups
        from hedera_history.formats import v6_items
        from hedera_history.store.mutation_wire import MutationEncoder
        from hedera_history.store.model import Cell, Row
        assert not speedups.available and v6_items.compiled_item_lists is None
        assert MutationEncoder().entries([Row("t", b"k", (Cell("f", b"q", b"v", 1),))])
        assert [r.levelname for r in records] == ["WARNING"], records
        print(records[0].fields["module"])
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hedera_history._speedups"
