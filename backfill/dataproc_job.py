"""The PySpark application Dataproc runs (``backfill submit`` stages this file as the main Python file).

It lives beside its container's recipe (``backfill/Dockerfile``), as each function's ``main.py`` lives
in ``functions/``, and imports runtime code only: the image holds the library (the Spark backfill,
``hedera_history.backfill``) and its runtime requirements, without the command line and its
libraries. It reads the flags ``backfill submit`` forwarded
(:func:`~hedera_history.backfill.job_spec.parse_job_argv`), runs the job on the session
``spark-submit`` configured, logs JSON lines, and prints the report's summary. Exit codes are those
of ``hedera-history backfill run``: 0 when every period verified, was written and every link checked
out, 1 when not (or on an error), 2 for wrong arguments.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from hedera_history import logs
from hedera_history.backfill.block_driver import BlockBackfillReport
from hedera_history.backfill.block_plan import BlockJob
from hedera_history.backfill.cutover import HistoryReport
from hedera_history.backfill.job_spec import build_block_job, build_job, is_block_job, parse_job_argv
from hedera_history.errors import HistoryError, JobArgumentError

USAGE_ERROR = 2


def run(argv: Sequence[str]) -> int:
    """The job's exit code for the command line ``argv`` (the program's name left out)."""
    args = parse_job_argv(argv)
    try:
        job = build_block_job(args) if is_block_job(args) else build_job(args)
    except JobArgumentError as e:
        print(f"error: {e}", file=sys.stderr)
        return USAGE_ERROR
    # On a cluster nobody watches a progress bar: the driver logs JSON lines instead.
    logs.configure("backfill", job.settings.log_level)
    from hedera_history.backfill.launch import launch_backfill, launch_block_backfill  # noqa: PLC0415 (PySpark)

    try:
        if isinstance(job, BlockJob):
            report: HistoryReport | BlockBackfillReport = launch_block_backfill(job, create_tables=args.create_tables)
        else:
            report = launch_backfill(job, create_tables=args.create_tables)
    except HistoryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for line in report.summary_lines():
        print(line, file=sys.stderr)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
