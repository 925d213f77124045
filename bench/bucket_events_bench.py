"""Bucket event discovery on the GCS emulator: what a listing costs as the bucket grows, and what the
bucket event bridge spends idle and under upload.

1. Listing cost at 100, 1,000 and 5,000 objects (``--sizes``): CPU per call of the emulator (its
   process group, from /proc, over a batch of calls) and of this process (thread time, paired
   samples in random order), for the raw whole-bucket listing (the baseline: what every poll of the
   bridge cost before, and what a sweep costs now) and for a probe (one folder's ``prefix``
   listing). Ratio probe / baseline.
2. The bridge at ``--bridge-sizes`` objects (1,000 and 5,000), ``--poll-interval`` 0.05 s (the e2e
   bench's), for discoveries run one after the other on the same emulator: ``none`` (no bridge:
   what the uploads alone cost), ``every-poll`` (a sweep every poll, the former behaviour, the
   baseline), ``ours`` (:class:`DiscoveryShape` defaults: sweeps backing off, one probe folder), and
   ``no-probes`` and ``probes-3``, which show what the probes buy and cost. Each runs
   ``--seconds`` idle, then ``--seconds`` under upload: a period of ``--nodes`` x (record,
   signature, sidecar) objects every 2 s, shuffled, as nodes upload. Printed:
   CPU a second of the emulator and of this process (bridge, uploads and the event receiver: the
   ``none`` row is what is not the bridge), the time from an upload's answer to its event (p50,
   max), and the ratios ours / every-poll. Every uploaded generation is checked to have had
   exactly one event.

The machine may be shared: CPU figures are what the processes themselves spent, and ratios come from
one run.

``python -m bench.bucket_events_bench [--sizes 100,1000,5000] [--bridge-sizes 1000,5000] [--seconds 10]``
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests
from hedera_history.localstack.emulators import GcsEmulator
from hedera_history.localstack.gcs_events import DiscoveryShape, GcsEventBridge, JsonApiBucketLister

from bench.machine import reports_machine
from bench.process_cpu import group_cpu_seconds
from bench.timing import paired_samples

BUCKET = "bench-streams"
PERIOD_SECONDS = 2.0
BATCH_SECONDS = 0.5
"""Emulator CPU is read in clock ticks (10 ms): each kind of call is repeated for at least this long."""
SETTLE_SECONDS = 3.0
EVENT_WAIT_SECONDS = 30.0


def object_names(period: int, nodes: int) -> list[str]:
    """One period's objects, every node's record, signature and sidecar (the ACCOUNT layout)."""
    seconds = PERIOD_SECONDS * period
    stamp = f"2024-01-01T{int(seconds // 3600):02d}_{int(seconds // 60) % 60:02d}_{int(seconds) % 60:02d}.000000000Z"
    names = []
    for node in range(3, 3 + nodes):
        folder = f"recordstreams/record0.0.{node}/"
        names += [f"{folder}{stamp}.rcd.gz", f"{folder}{stamp}.rcd_sig", f"{folder}sidecar/{stamp}_01.rcd.gz"]
    return names


class Bucket:
    """Uploads into the emulator's bucket, one period at a time, remembering each upload's generation."""

    def __init__(self, endpoint: str, nodes: int) -> None:
        self.endpoint = endpoint
        self.nodes = nodes
        self.periods = 0
        self.objects = 0
        self._session = requests.Session()
        self._session.post(
            f"{endpoint}/storage/v1/b", params={"project": "bench"}, json={"name": BUCKET}
        ).raise_for_status()

    def upload_period(self, rng: random.Random) -> dict[tuple[str, int], float]:
        """The next period's objects in random order; (name, generation) -> when its upload answered."""
        names = object_names(self.periods, self.nodes)
        rng.shuffle(names)
        self.periods += 1
        done = {}
        for name in names:
            answer = self._session.post(
                f"{self.endpoint}/upload/storage/v1/b/{BUCKET}/o",
                params={"uploadType": "media", "name": name},
                data=name.encode(),
            )
            answer.raise_for_status()
            done[(name, int(answer.json()["generation"]))] = time.monotonic()
        self.objects += len(names)
        return done

    def fill_to(self, size: int, rng: random.Random) -> None:
        while self.objects < size:
            self.upload_period(rng)


class EventReceiver:
    """An HTTP endpoint answering 204 to every event and noting when each (name, generation) came."""

    def __init__(self) -> None:
        self.received: list[tuple[tuple[str, int], float]] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                data = json.loads(body)
                with receiver._lock:
                    receiver.received.append(((data["name"], int(data["generation"])), time.monotonic()))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def count(self) -> int:
        with self._lock:
            return len(self.received)

    def since(self, start: int) -> list[tuple[tuple[str, int], float]]:
        with self._lock:
            return self.received[start:]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


# ---- 1. listing cost -----------------------------------------------------------------------------


def emulator_cpu_per_call(emulator_pid: int, call: Callable[[], object]) -> float:
    calls = 0
    before = group_cpu_seconds(emulator_pid)
    started = time.monotonic()
    while calls < 10 or time.monotonic() - started < BATCH_SECONDS:
        call()
        calls += 1
    return (group_cpu_seconds(emulator_pid) - before) / calls


def listing_cost(emulator: GcsEmulator, bucket: Bucket, rng: random.Random) -> None:
    """One row: a sweep's and a probe's CPU at the bucket's current size, and an upload's."""
    assert emulator.pid is not None
    lister = JsonApiBucketLister(emulator.endpoint, BUCKET)
    folder = "recordstreams/record0.0.3/"
    print("listing cost per call (ms of CPU); baseline: the whole-bucket listing, probe: one folder's prefix;")
    print("and the emulator's CPU per upload, which grows with the bucket too")
    print(f"  {'objects':>7}  {'emulator':>26}  {'this process':>26}  {'ratio probe/base':>16}  {'upload':>6}")
    before = group_cpu_seconds(emulator.pid)
    uploads = len(bucket.upload_period(rng))
    emulator_upload = (group_cpu_seconds(emulator.pid) - before) / uploads
    emulator_base = emulator_cpu_per_call(emulator.pid, lister.list_objects)
    emulator_probe = emulator_cpu_per_call(emulator.pid, lambda: lister.list_objects(folder))
    probe, base = paired_samples(
        lambda: (lambda: lister.list_objects(folder), lister.list_objects), 30, rng, clock=time.thread_time
    )
    client_base, client_probe = statistics.median(base), statistics.median(probe)
    ratio = (emulator_probe + client_probe) / (emulator_base + client_base)
    print(
        f"  {bucket.objects:>7}  base {1000 * emulator_base:6.2f} probe {1000 * emulator_probe:5.2f}"
        f"  base {1000 * client_base:6.2f} probe {1000 * client_probe:5.2f}  {ratio:16.3f}"
        f"  {1000 * emulator_upload:6.2f}"
    )
    lister.close()


# ---- 2. the bridge -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BridgeFigures:
    emulator_idle: float
    process_idle: float
    emulator_busy: float
    process_busy: float
    delay_p50: float
    delay_max: float
    sweeps: int
    probes: int

    def row(self, label: str) -> list[str]:
        seconds = (self.emulator_idle, self.process_idle, self.emulator_busy, self.process_busy)
        delays = (self.delay_p50, self.delay_max)
        return [label, *(f"{v:.3f}" for v in seconds + delays), str(self.sweeps), str(self.probes)]


ROW_HEADINGS = (
    "discovery",
    "idle emu",
    "idle own",
    "busy emu",
    "busy own",
    "delay p50",
    "delay max",
    "sweeps",
    "probes",
)


@contextmanager
def running_bridge(
    emulator: GcsEmulator, receiver: EventReceiver, poll: float, shape: DiscoveryShape | None
) -> Iterator[GcsEventBridge | None]:
    if shape is None:
        yield None
        return
    lister = JsonApiBucketLister(emulator.endpoint, BUCKET)
    bridge = GcsEventBridge(lister, receiver.url, poll_interval=poll, discovery=shape)
    try:
        with bridge:
            yield bridge
    finally:
        lister.close()


def cpu_now(emulator_pid: int) -> tuple[float, float]:
    return group_cpu_seconds(emulator_pid), time.process_time()


def measure_bridge(
    emulator: GcsEmulator, bucket: Bucket, shape: DiscoveryShape | None, seconds: float, poll: float, rng: random.Random
) -> BridgeFigures:
    assert emulator.pid is not None
    receiver = EventReceiver()
    with running_bridge(emulator, receiver, poll, shape) as bridge:
        if bridge is not None:  # the first sweep announces the whole bucket: not what is measured
            deadline = time.monotonic() + EVENT_WAIT_SECONDS + bucket.objects / 100
            while bridge.stats().sent < bucket.objects and time.monotonic() < deadline:
                time.sleep(0.05)
        time.sleep(SETTLE_SECONDS)
        emulator_start, process_start = cpu_now(emulator.pid)
        time.sleep(seconds)
        emulator_idle, process_idle = cpu_now(emulator.pid)
        first_event = receiver.count()
        uploaded: dict[tuple[str, int], float] = {}
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            period_started = time.monotonic()
            uploaded |= bucket.upload_period(rng)
            time.sleep(max(0.0, PERIOD_SECONDS - (time.monotonic() - period_started)))
        emulator_busy, process_busy = cpu_now(emulator.pid)
        busy_seconds = time.monotonic() - started
        delays = [0.0]
        if bridge is not None:
            deadline = time.monotonic() + EVENT_WAIT_SECONDS
            while receiver.count() - first_event < len(uploaded) and time.monotonic() < deadline:
                time.sleep(0.05)
            events = receiver.since(first_event)
            counts: dict[tuple[str, int], int] = {}
            for key, _ in events:
                counts[key] = counts.get(key, 0) + 1
            if counts != dict.fromkeys(uploaded, 1):
                missing = len(set(uploaded) - set(counts))
                twice = sum(1 for n in counts.values() if n > 1)
                raise SystemExit(f"bridge broke its contract: {missing} generations missed, {twice} announced twice")
            delays = [at - uploaded[key] for key, at in events]
        stats = bridge.stats() if bridge is not None else None
    receiver.close()
    return BridgeFigures(
        emulator_idle=(emulator_idle - emulator_start) / seconds,
        process_idle=(process_idle - process_start) / seconds,
        emulator_busy=(emulator_busy - emulator_idle) / busy_seconds,
        process_busy=(process_busy - process_idle) / busy_seconds,
        delay_p50=statistics.median(delays),
        delay_max=max(delays),
        sweeps=stats.sweeps if stats else 0,
        probes=stats.probes if stats else 0,
    )


def bridge_cost(emulator: GcsEmulator, bucket: Bucket, seconds: float, poll: float, rng: random.Random) -> None:
    """One block: every discovery idle and under upload, from the bucket's current size."""
    shapes: dict[str, DiscoveryShape | None] = {
        "none": None,
        "every-poll": DiscoveryShape.sweep_every_poll(),
        "ours": DiscoveryShape(),
        "no-probes": DiscoveryShape(probe_folders=0),
        "probes-3": DiscoveryShape(probe_folders=3),
    }
    print(f"the bridge, polling every {poll} s: CPU-s a second (emulator, this process), idle then under upload")
    print(f"  bucket of {bucket.objects} objects (growing by {bucket.nodes * 3} a period under upload)")
    print("    " + "  ".join(f"{h:>9}" for h in ROW_HEADINGS))
    found = {}
    for label, shape in shapes.items():
        found[label] = figures = measure_bridge(emulator, bucket, shape, seconds, poll, rng)
        print("    " + "  ".join(f"{v:>9}" for v in figures.row(label)))
    print_ratios(found["none"], found["every-poll"], found["ours"])


def print_ratios(none: BridgeFigures, baseline: BridgeFigures, ours: BridgeFigures) -> None:
    """Ours / every-poll, for the emulator and for this process less what it spends without a bridge."""

    def ratio(mine: float, theirs: float) -> str:
        return f"{mine / theirs:.2f}" if theirs > 0 else "n/a"

    print(
        "    ratio ours/every-poll:"
        f" idle emulator {ratio(ours.emulator_idle - none.emulator_idle, baseline.emulator_idle - none.emulator_idle)},"
        f" idle bridge {ratio(ours.process_idle - none.process_idle, baseline.process_idle - none.process_idle)},"
        f" busy emulator {ratio(ours.emulator_busy - none.emulator_busy, baseline.emulator_busy - none.emulator_busy)},"
        f" busy bridge {ratio(ours.process_busy - none.process_busy, baseline.process_busy - none.process_busy)},"
        f" delay p50 {ratio(ours.delay_p50, baseline.delay_p50)}"
    )


def sizes_argument(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


@reports_machine
def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=sizes_argument, default=[100, 1000, 5000])
    parser.add_argument("--bridge-sizes", type=sizes_argument, default=[1000, 5000])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--poll-interval", type=float, default=0.05)
    parser.add_argument("--nodes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    rng = random.Random(options.seed)
    with (
        tempfile.TemporaryDirectory(prefix="bucket-events-bench-") as logs,
        GcsEmulator(log_dir=Path(logs)) as emulator,
    ):
        bucket = Bucket(emulator.endpoint, options.nodes)
        # Sizes in ascending order: the bucket only grows (the bridge's uploads add to it).
        for size in sorted(set(options.sizes) | set(options.bridge_sizes)):
            bucket.fill_to(size, rng)
            if size in options.sizes:
                listing_cost(emulator, bucket, rng)
            if size in options.bridge_sizes:
                bridge_cost(emulator, bucket, options.seconds, options.poll_interval, rng)


if __name__ == "__main__":
    main()
