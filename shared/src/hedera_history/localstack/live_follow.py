"""A generated live network followed by a local stack: what the stack needs before the network
plays, and each block as the query function starts answering it.

- :func:`prepare_live_network` writes the bootstrap address book, the node keys and the genesis
  balances of a :class:`~hedera_history.gen.live.LiveConfig` before it plays: the stack starts with
  that book (its follower verifies the first period with it) and loads those balances before the
  first block, as ``stack upload`` does for a generated directory. The book does not depend on the
  start time, so the player's own (written when it starts) is the same.
- :class:`BlockArrivals` polls the query function (JSON-RPC ``getBlock``) for the blocks the network
  is writing and records, per block, when it was first answered, beside the player's
  :class:`~hedera_history.gen.live.PeriodWritten` (when its last on-time signature file landed).
  The demo prints each arrival; the lag benchmark and the tests take the figures.
- :func:`follower_lag_seconds` asks the query function for the follower's own lag.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import requests

from hedera_history.errors import GeneratorError
from hedera_history.gen.ledger import genesis_state
from hedera_history.gen.live import LiveConfig, PeriodWritten
from hedera_history.gen.stream import StreamBuilder
from hedera_history.gen.truth import account
from hedera_history.gen.writer import ADDRESS_BOOK_FILE, GENESIS_BALANCES_FILE, write_book_and_keys
from hedera_history.logs import event

logger = logging.getLogger(__name__)

NS_PER_SECOND = 1_000_000_000
LOOKAHEAD_BLOCKS = 2
"""Blocks polled beyond the last one the player reported: a block can be answered before its last
on-time signature file lands (more than two thirds of the nodes had signed)."""


@dataclass(frozen=True, slots=True)
class PreparedNetwork:
    folder: Path
    """The book, keys and genesis balances (the player writes its truth here at the end)."""
    first_block: int

    @property
    def address_book(self) -> Path:
        return self.folder / ADDRESS_BOOK_FILE


def prepare_live_network(config: LiveConfig, folder: Path, *, now_ns: int | None = None) -> PreparedNetwork:
    """Write ``config``'s bootstrap book, keys and genesis balances (as of just before ``now_ns``,
    which must precede the network's first period) into ``folder``."""
    now = time.time_ns() if now_ns is None else now_ns
    builder = StreamBuilder(config.generator_config(now))
    write_book_and_keys(builder.bootstrap_book, builder.nodes, builder.keys, folder)
    genesis = genesis_state(config.nodes, builder.config.accounts)
    snapshot = {"consensus_ns": now - 1, "balances": {account(n): v for n, v in sorted(genesis.hbar.items())}}
    try:
        (folder / GENESIS_BALANCES_FILE).write_text(json.dumps(snapshot, indent=1) + "\n")
    except OSError as e:
        raise GeneratorError(f"cannot write the genesis balances: {e}", file=str(folder)) from e
    return PreparedNetwork(folder, config.start_block)


def follower_mode(query_url: str) -> str | None:
    """What the follower reads, from the query function's GET /api/v1/status: ``records`` until
    the cutover, ``blocks`` after it; None when the status did not answer or does not say."""
    try:
        mode = requests.get(f"{query_url}/api/v1/status", timeout=10).json()["follower"]["mode"]
    except (requests.RequestException, ValueError, KeyError, TypeError):
        return None
    return mode if isinstance(mode, str) else None


def follower_lag_seconds(query_url: str) -> float | None:
    """The follower's own lag from the query function's GET /api/v1/status (now minus the last
    period it handed off); None when the status did not answer or does not say."""
    try:
        return float(requests.get(f"{query_url}/api/v1/status", timeout=10).json()["follower"]["lag_seconds"])
    except (requests.RequestException, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True, slots=True)
class Arrival:
    """A block first answered by the query function."""

    block_number: int
    answered_ns: int
    written: PeriodWritten
    """The player's report of the block's period."""

    @property
    def is_block_file(self) -> bool:
        """The period was a block file (after a cutover): no signature files, its proof inside."""
        return self.written.signatures == 0 and self.written.files > 0

    @property
    def lag_seconds(self) -> float | None:
        """From the period's last on-time signature file written (a block file: the file written) to
        the block answered (None when no signature file was on time); below 0 when enough nodes had
        signed before the last one."""
        if self.is_block_file:
            return (self.answered_ns - self.written.last_written_ns) / NS_PER_SECOND
        if self.written.last_signature_ns is None:
            return None
        return (self.answered_ns - self.written.last_signature_ns) / NS_PER_SECOND


class BlockArrivals:
    """Polls ``getBlock`` for the blocks ``first_block`` on, from a thread, until stopped.

    Feed it the player's reports (:meth:`period_written`, the player's ``on_period``); ``on_arrival``
    is called from the polling thread, once per block, when both the answer and the report are in.
    With ``listing``, one ``getBlocks`` over the blocks not answered yet stands for their ``getBlock``
    calls (the same blocks, those complete): a mainnet-sized block's ``getBlock`` renders 20,000
    transactions, seconds of the query function's CPU each time it is polled.
    """

    def __init__(
        self,
        query_url: str,
        first_block: int,
        *,
        poll_seconds: float = 0.1,
        on_arrival: Callable[[Arrival], None] | None = None,
        listing: bool = False,
    ) -> None:
        self.query_url = query_url
        self.first_block = first_block
        self.poll_seconds = poll_seconds
        self.on_arrival = on_arrival
        self.listing = listing
        self._lock = threading.Lock()
        self._written: dict[int, PeriodWritten] = {}
        self._answered: dict[int, int] = {}
        self._arrivals: dict[int, Arrival] = {}
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._session = requests.Session()
        self.poll_errors = 0

    # ---- feeding and reading -----------------------------------------------------------------------

    def period_written(self, written: PeriodWritten) -> None:
        with self._lock:
            self._written[written.block_number] = written

    def arrivals(self) -> list[Arrival]:
        with self._lock:
            return [self._arrivals[n] for n in sorted(self._arrivals)]

    def answered(self) -> set[int]:
        with self._lock:
            return set(self._answered)

    def wait_for(self, numbers: set[int], timeout: float) -> bool:
        """True once every block in ``numbers`` was answered and reported; False at ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if numbers <= set(self._arrivals):
                    return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)

    # ---- the polling thread ------------------------------------------------------------------------

    def start(self) -> BlockArrivals:
        self._thread = threading.Thread(target=self._run, name="block-arrivals", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(30.0)
        self._session.close()

    def __enter__(self) -> BlockArrivals:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _run(self) -> None:
        while not self._stopping.is_set():
            started = time.monotonic()
            numbers = self._to_poll()
            for number in self._listed(numbers) if self.listing else numbers:
                if self._stopping.is_set():
                    return
                if self.listing or self._is_answered(number):
                    with self._lock:
                        self._answered.setdefault(number, time.time_ns())
            self._report_ready()
            self._stopping.wait(max(0.0, started + self.poll_seconds - time.monotonic()))

    def _to_poll(self) -> list[int]:
        with self._lock:
            highest = max((*self._written, *self._answered, self.first_block - 1))
            candidates = range(self.first_block, highest + LOOKAHEAD_BLOCKS + 1)
            return [n for n in candidates if n not in self._answered]

    def _is_answered(self, number: int) -> bool:
        body = {"jsonrpc": "2.0", "id": number, "method": "getBlock", "params": [number]}
        try:
            response = self._session.post(self.query_url, json=body, timeout=30)
            answer = response.json()
        except (requests.RequestException, ValueError) as e:
            self.poll_errors += 1
            event(logger, "getBlock poll failed", logging.DEBUG, block=number, error=repr(e))
            return False
        return isinstance(answer, dict) and answer.get("result") is not None

    def _listed(self, numbers: list[int]) -> list[int]:
        """Which of ``numbers`` one ``getBlocks`` over their span lists (complete)."""
        if not numbers:
            return []
        body = {"jsonrpc": "2.0", "id": 1, "method": "getBlocks", "params": [min(numbers), max(numbers)]}
        try:
            answer = self._session.post(self.query_url, json=body, timeout=30).json()
        except (requests.RequestException, ValueError) as e:
            self.poll_errors += 1
            event(logger, "getBlocks poll failed", logging.DEBUG, error=repr(e))
            return []
        listed = answer.get("result") if isinstance(answer, dict) else None
        wanted = set(numbers)
        return [int(n) for n in listed or () if int(n) in wanted]

    def _report_ready(self) -> None:
        ready: list[Arrival] = []
        with self._lock:
            for number, answered_ns in sorted(self._answered.items()):
                if number in self._arrivals or number not in self._written:
                    continue
                arrival = Arrival(number, answered_ns, self._written[number])
                self._arrivals[number] = arrival
                ready.append(arrival)
        if self.on_arrival is not None:
            for arrival in ready:
                self.on_arrival(arrival)
