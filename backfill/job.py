"""Kept for checkouts that run ``backfill/job.py`` by path: the application is
``hedera_history.backfill.job_main``, which ships inside the wheel."""

from __future__ import annotations

import sys

from hedera_history.backfill.job_main import run

if __name__ == "__main__":
    run(sys.argv[1:])
