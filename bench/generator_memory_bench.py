"""Generator memory: peak resident memory of ``hedera-history generate`` against the stream's length.

Each run is its own process (peak RSS is per process), generating the same config at ``--periods``
and at four times as many into a temporary directory:

- **streamed**: ``gen.generate_into`` (what the CLI runs): each period's files written and dropped,
  the truth's transactions spilled to a temporary file;
- **whole** (the baseline, what the CLI ran before): ``generate_stream`` then ``write_stream``, every
  file and every transaction in memory until the end.

Goal: the streamed peak flat in the stream's length, i.e. peak(4 N) / peak(N) close to 1 (the truth's
per-block balances and per-account times still grow, by under 100 bytes a transaction).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile

from bench.machine import reports_machine

_RUN = """
import resource, sys
from hedera_history.gen import GeneratorConfig, generate_into, generate_stream, write_stream
mode, periods, transactions, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
config = GeneratorConfig(nodes=4, periods=periods, transactions=transactions, seed=0)
if mode == "streamed":
    generate_into(config, out)
else:
    write_stream(generate_stream(config), out)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_mib(mode: str, periods: int, transactions: int) -> float:
    with tempfile.TemporaryDirectory(prefix="hedera-history-genmem-") as out:
        result = subprocess.run(
            [sys.executable, "-c", _RUN, mode, str(periods), str(transactions), out],
            check=True,
            capture_output=True,
            text=True,
        )
    return int(result.stdout.strip().splitlines()[-1]) / 1024


@reports_machine
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--periods", type=int, default=15)
    parser.add_argument("--transactions", type=int, default=2000, help="transactions a period")
    args = parser.parse_args(argv)
    short, long = args.periods, 4 * args.periods
    print(f"peak RSS (MiB), {args.transactions} transactions a period, 4 nodes")
    print(f"{'mode':<10} {short:>6} periods {long:>6} periods  growth")
    for mode in ("whole", "streamed"):
        small, large = peak_rss_mib(mode, short, args.transactions), peak_rss_mib(mode, long, args.transactions)
        print(f"{mode:<10} {small:>14.0f} {large:>14.0f}  {large / small:5.2f}x")


if __name__ == "__main__":
    main()
