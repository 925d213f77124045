"""The PySpark application Dataproc runs (``backfill submit`` stages this file as the main Python file).

It ships inside the package, so submitting needs no checkout. It only hands its arguments to
``hedera-history backfill run``: the session comes from the master ``spark-submit`` configured, and
the library (installed in the custom container image, ``dataproc-image/``) does the rest.
"""

from __future__ import annotations

import sys

from hedera_history.cli.main import main


def run(args: list[str]) -> None:
    sys.argv = ["hedera-history", "backfill", "run", *args]
    main()


if __name__ == "__main__":
    run(sys.argv[1:])
