"""The bucket event bridge against the GCS emulator: shuffled uploads, old names late, idle gaps
(when sweeps back off and probes do the looking) and a re-upload, each generation announced once."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from hedera_history.localstack.emulators import GcsEmulator
from hedera_history.localstack.gcs_events import DiscoveryShape, GcsEventBridge, JsonApiBucketLister

from tests.http_recorder import RecordingServer

FOLDERS = [f"recordstreams/record0.0.{node}/" for node in range(3, 9)]
WAIT_SECONDS = 60.0


def period_names(period: int, folders: list[str]) -> list[str]:
    stamp = f"2024-01-01T00_00_{2 * period:02d}.000000000Z"
    return [f"{folder}{stamp}{suffix}" for folder in folders for suffix in (".rcd.gz", ".rcd_sig")]


def announced(server: RecordingServer) -> list[tuple[str, int]]:
    found = []
    for request in server.requests:
        data = json.loads(request.body)
        found.append((data["name"], int(data["generation"])))
    return found


def upload(bucket: Any, names: list[str]) -> set[tuple[str, int]]:
    uploaded = set()
    for name in names:
        blob = bucket.blob(name)
        blob.upload_from_string(name.encode())
        uploaded.add((name, int(blob.generation)))
    return uploaded


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"not within {WAIT_SECONDS:.0f} s: {what}"
        time.sleep(0.02)


def test_every_generation_is_announced_once_in_any_upload_order(gcs_emulator: GcsEmulator, gcs_bucket: Any) -> None:
    rng = random.Random(7)
    lister = JsonApiBucketLister(gcs_emulator.endpoint, gcs_bucket.name)
    expected: set[tuple[str, int]] = set()
    with RecordingServer() as server:
        bridge = GcsEventBridge(
            lister,
            server.url,
            poll_interval=0.02,
            discovery=DiscoveryShape(idle_poll_interval=0.3, probe_folders=2),
        )

        def all_announced() -> bool:
            return set(announced(server)) >= expected

        with bridge:
            # In order, as nodes write: the last folders become the probes' folders.
            expected |= upload(gcs_bucket, [n for p in range(3) for n in period_names(p, FOLDERS[:4])])
            wait_until(all_announced, "the in-order uploads announced")
            # Idle long enough for the sweeps to back off to their slowest cadence.
            sweeps = bridge.stats().sweeps
            wait_until(lambda: bridge.stats().sweeps >= sweeps + 4, "the sweeps backing off")
            # Shuffled: new periods, old periods of folders seen before, and folders never seen.
            late = [n for p in range(3, 6) for n in period_names(p, FOLDERS)]
            late += [n for p in range(3) for n in period_names(p, FOLDERS[4:])]
            rng.shuffle(late)
            expected |= upload(gcs_bucket, late)
            wait_until(all_announced, "the shuffled and late uploads announced")
            # A re-upload of an old name is a new generation: one more event.
            expected |= upload(gcs_bucket, [period_names(0, FOLDERS[:1])[0]])
            wait_until(all_announced, "the re-upload announced")
            # Give the listings time to announce anything twice.
            stats = bridge.stats()
            wait_until(
                lambda: bridge.stats().sweeps >= stats.sweeps + 3 and bridge.stats().probes >= stats.probes + 3,
                "more sweeps and probes",
            )
        lister.close()
        events = announced(server)
        assert len(events) == len(set(events)), "an object generation was announced twice"
        assert set(events) == expected
        final = bridge.stats()
        assert (final.sent, final.dropped, final.retried) == (len(expected), 0, 0)
        assert final.probes > 0
