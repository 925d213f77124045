"""Fault injection on the local stack: whatever dies when, every published period ends in a complete
block, and every history table ends cell for cell (timestamps included) as a clean run writes it.

Each case uploads every node's copy of a small generated stream (8 blocks) into a fresh stack,
injects one fault while the pipeline works, and then waits (bounded) until every block is
complete and the tables equal the reference, which the single-process path (``verify_stream`` +
``BlockWriter``) writes once per module under another table prefix:

- the store function SIGKILLed mid-ingest, restarted on its port a few seconds later; once more
  with the default settings (the store's retry policy, the reconciler's 180 s), every block
  complete within 30 s of the restart (``HEDERA_HISTORY_FAULT_RUNS=10``: ten runs in a row);
- a store crash between a block's ``done`` and its ``connected`` (the test-only crash point
  ``HEDERA_HISTORY_FAULT_POINT``), which only the sweep's repair of the watermark heals;
- the ingest function SIGKILLed mid-ingest, restarted;
- the store function down long enough for messages to exhaust their deliveries and be
  dead-lettered, then back, and the dead letters replayed (``deadletters replay``);
- every file uploaded three times, shuffled;
- the Bigtable emulator paused (SIGSTOP) for 75 s while the pipeline works, far longer than the
  functions' Bigtable call timeout, then resumed (an emulator of its own);
- the Pub/Sub emulator restarted on its port (in-memory: topics, subscriptions and the messages in
  them are gone; the stack's topics are created again, the push bridges pull again, and the
  reconciler republishes what was lost);
- a network that cuts over (record periods, wrapped record blocks, native blocks): its block files
  uploaded shuffled, each twice, while the ingest or the store function is killed as the first
  blocks are published; and uploaded shuffled, the Bigtable emulator paused for 30 s once ingest
  has published every block, while the store writes them; and uploaded while the Bigtable emulator
  is paused, until the bucket bridge has dropped every block's event (only the sweep's read of the
  block after the stored chain's end brings them in).

The reconciler's deadline is a second or two here (``HEDERA_HISTORY_RECONCILE_AFTER_SECONDS``),
except in the default-settings cases. Every case also ends with the contiguous watermark and the
address-book keeper at the last block.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.fault_points import FAULT_POINT_VARIABLE, STORE_AFTER_DONE
from hedera_history.formats.names import parse_timestamp
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE, GeneratedStream
from hedera_history.localstack.emulators import BigtableEmulator, PubSubEmulator
from hedera_history.localstack.provision import create_topics
from hedera_history.localstack.scoped_env import scoped_environ
from hedera_history.localstack.stack import AttachedEmulators, LocalStack
from hedera_history.localstack.stack_progress import directory_target, open_gateway_for, read_progress, wait_for_blocks
from hedera_history.localstack.upload import (
    bucket_sink,
    find_stream_files,
    install_address_book,
    plan_uploads,
    upload_files,
)
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.pipeline.block_load import load_block_runs
from hedera_history.pipeline.state import IngestState
from hedera_history.pipeline.tracking_rows import TrackingRows
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.transport.dead_letters import replay_dead_letters
from hedera_history.transport.topics import RetryPolicy
from hedera_history.verify.consensus import DEFAULT_RATIO
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import PROJECT, unique_name
from tests.fixtures.stack import StackFactory
from tests.helpers.bigtable_cells import TableCells, describe_difference, history_cells

pytestmark = [pytest.mark.emulator, pytest.mark.e2e]

WAIT_SECONDS = 240
RESTART_BOUND_SECONDS = 30
"""With the default settings, every block complete within this long of the store's restart."""
DEFAULT_SETTINGS_RUNS = int(os.environ.get("HEDERA_HISTORY_FAULT_RUNS", "1"))
"""How many times the default-settings kill runs (``HEDERA_HISTORY_FAULT_RUNS=10`` for ten in a row)."""
FAST_RECONCILE = {
    "HEDERA_HISTORY_RECONCILE_AFTER_SECONDS": "2",
    "HEDERA_HISTORY_SWEEP_MIN_AGE_SECONDS": "2",
}


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=8, transactions=12, sidecars=True, seed=31))


@pytest.fixture(scope="module")
def stream_dir(stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fault-stream")
    write_stream(stream, directory)
    return directory


@pytest.fixture(scope="module")
def reference(stream_dir: Path, stream: GeneratedStream, bigtable_client: Any) -> TableCells:
    """The clean run: the single-process path over the same stream, in an instance of its own."""
    instance = bigtable_client.instance(unique_name("ref"))
    settings = Settings.from_env(project=PROJECT, bigtable_instance=instance.instance_id, table_prefix="ref_")
    ensure_tables(instance, settings)
    gateway = gateway_for_instance(instance, settings)
    try:
        results = list(verify_stream(find_local_periods(stream_dir), parse_address_book(stream.address_book)))
        blocks = [r.report.block for r in results if r.report.block is not None]
        assert len(blocks) == len(stream.periods)
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
    finally:
        gateway.close()
    return history_cells(PROJECT, instance.instance_id, "ref_")


def start(factory: StackFactory, stream: GeneratedStream, **changes: Any) -> LocalStack:
    extra = {**FAST_RECONCILE, **changes.pop("extra_env", {})}
    return factory(first_block=stream.truth["blocks"][0]["number"], extra_env=extra, **changes)


def upload(stack: LocalStack, directory: Path, *, seed: int, times: int = 1) -> None:
    install_address_book(stack.state, directory)
    files = find_stream_files(directory)
    for round_ in range(times):
        upload_files(stack.state, plan_uploads(files, shuffle=True, seed=seed + round_))


def assert_heals_to_reference(
    stack: LocalStack, directory: Path, reference: TableCells, stream: GeneratedStream, *, reconciled: bool = True
) -> None:
    """Every block complete within the bound, then the tables equal the clean run's (the last
    signature cells and republished duplicates may land a moment after completion), and the
    contiguous watermark and the address-book keeper at the last block, the rotated book written;
    with ``reconciled``, the reconciler also ends up watching nothing (it saw every block complete)."""
    outcome = wait_for_blocks(HistoryReader(open_gateway_for(stack.state)), directory_target(directory), WAIT_SECONDS)
    assert outcome.done, f"blocks {outcome.missing} still incomplete after {outcome.seconds:.0f} s"
    assert_watermark_and_keeper_at_the_end(stack, stream)
    state = stack.state
    assert_cells_become(stack, reference)
    if reconciled:
        deadline = time.monotonic() + 60
        while (watched := read_progress(open_gateway_for(state)).unconfirmed_periods) and time.monotonic() < deadline:
            time.sleep(1)
        assert watched == 0, f"the reconciler still watches {watched} periods"


def assert_cells_become(stack: LocalStack, reference: TableCells, timeout: float = 60) -> None:
    """The history tables equal ``reference`` within ``timeout`` (the last signature cells and
    republished duplicates may land a moment after the blocks complete)."""
    state = stack.state
    deadline = time.monotonic() + timeout
    while True:
        with scoped_environ({"BIGTABLE_EMULATOR_HOST": state.bigtable_host}):
            actual = history_cells(state.project, state.bigtable_instance, state.table_prefix)
        if actual == reference or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert actual == reference, describe_difference(reference, actual)


def assert_watermark_and_keeper_at_the_end(stack: LocalStack, stream: GeneratedStream, timeout: float = 60) -> None:
    """The watermark reaches the last block and the keeper follows it (the store's calls, or the
    sweep's repair after a crash between them), every rotated book in force from its block on."""
    gateway = open_gateway_for(stack.state)
    numbers = block_numbers(stream)
    rows = TrackingRows(gateway, numbers[0])
    books = AddressBookHistory(gateway, parse_address_book(stream.address_book), first_block=numbers[0])
    deadline = time.monotonic() + timeout
    while True:
        tip = rows.watermark()
        reached = (None if tip is None else tip.number, books.applied_through())
        if reached == (numbers[-1], numbers[-1]) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert reached == (numbers[-1], numbers[-1]), f"watermark and keeper at {reached}, not at block {numbers[-1]}"
    starts = {period.block_number: period.consensus_start_ns for period in stream.periods}
    assert len(stream.address_books) > 1, "the stream rotates a key"
    for epoch in stream.address_books:
        assert books.book_at(starts[epoch.first_block]) == parse_address_book(epoch.book), epoch.first_block


def block_numbers(stream: GeneratedStream) -> list[int]:
    return [int(block["number"]) for block in stream.truth["blocks"]]


def wait_for_some_blocks(stack: LocalStack, stream: GeneratedStream, at_least: int, timeout: float = 120) -> None:
    """Until ``at_least`` blocks are complete: the pipeline is in the middle of its work."""
    reader = HistoryReader(open_gateway_for(stack.state))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(reader.complete_blocks(block_numbers(stream))) >= at_least:
            return
        time.sleep(0.2)


def wait_until_published(
    stack: LocalStack, stream: GeneratedStream, at_least: int | None = None, timeout: float = 180
) -> None:
    """Until ingest has published ``at_least`` periods of the stream (default: every one)."""
    state = IngestState(open_gateway_for(stack.state))
    times = [parse_timestamp(period.record_name.period_key) for period in stream.periods]
    wanted = len(times) if at_least is None else at_least
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        known = [state.period(consensus_ns) for consensus_ns in times]
        if sum(period is not None and period.published is not None for period in known) >= wanted:
            return
        time.sleep(0.2)
    pytest.fail(f"ingest did not publish {wanted} periods within {timeout:.0f} s")


@pytest.mark.parametrize(
    ("function", "seed", "after_a_block", "down_seconds"),
    [
        pytest.param("store", 1, True, 4, id="store"),  # after the first block completes
        pytest.param("ingest", 2, False, 2, id="ingest"),  # right after the uploads
    ],
)
def test_function_killed_mid_ingest_heals(
    local_stack_factory: StackFactory,
    stream: GeneratedStream,
    stream_dir: Path,
    reference: TableCells,
    function: str,
    seed: int,
    after_a_block: bool,
    down_seconds: float,
) -> None:
    stack = start(local_stack_factory, stream)
    upload(stack, stream_dir, seed=seed)
    if after_a_block:
        wait_for_some_blocks(stack, stream, 1)
    killed = stack.function(function)
    killed.kill()
    time.sleep(down_seconds)
    killed.restart()
    assert_heals_to_reference(stack, stream_dir, reference, stream)


@pytest.mark.parametrize("run", range(DEFAULT_SETTINGS_RUNS))
def test_store_killed_with_default_settings_completes_within_seconds_of_its_restart(
    local_stack_factory: StackFactory,
    stream: GeneratedStream,
    stream_dir: Path,
    reference: TableCells,
    run: int,
    record_property: Callable[[str, object], None],
) -> None:
    # No setting shortened: the store subscriptions' retry policy, the reconciler's 180 s. A message
    # the dead store rejected must come back by redelivery, not wait for the reconciler.
    stack = local_stack_factory(first_block=stream.truth["blocks"][0]["number"])
    upload(stack, stream_dir, seed=100 + run)
    wait_for_some_blocks(stack, stream, 1)
    store = stack.function("store")
    store.kill()
    time.sleep(4)
    store.restart()
    reader = HistoryReader(open_gateway_for(stack.state))
    outcome = wait_for_blocks(reader, directory_target(stream_dir), RESTART_BOUND_SECONDS)
    assert outcome.done, f"blocks {outcome.missing} still incomplete {RESTART_BOUND_SECONDS} s after the restart"
    record_property("seconds_from_restart_to_every_block_complete", round(outcome.seconds, 1))
    assert_heals_to_reference(stack, stream_dir, reference, stream, reconciled=False)


def test_store_crash_between_done_and_connected_is_repaired_by_the_sweep(
    local_stack_factory: StackFactory, stream: GeneratedStream, stream_dir: Path, reference: TableCells
) -> None:
    # The fault point kills every store worker about to connect the first block, between its done
    # cell and its connected one: the one that completed it, one racing it, a redelivery of one of its
    # messages. That block is the watermark's root, so every later block waits on it, and no store
    # call can ever connect it: only the sweep's repair can, and bring the keeper along (before, the
    # watermark stayed empty and the keeper unwritten for good). Nothing else is shortened.
    first = block_numbers(stream)[0]
    stack = local_stack_factory(first_block=first, extra_env={FAULT_POINT_VARIABLE: f"{STORE_AFTER_DONE}:{first}"})
    upload(stack, stream_dir, seed=7)
    log = Path(stack.function("store").record().log_path)
    deadline = time.monotonic() + WAIT_SECONDS
    while "fault point reached" not in log.read_text(errors="replace") and time.monotonic() < deadline:
        time.sleep(0.5)
    assert "fault point reached" in log.read_text(errors="replace"), "the store never reached its crash point"
    assert_heals_to_reference(stack, stream_dir, reference, stream, reconciled=False)  # it confirms after 180 s
    sweep_log = Path(stack.function("sweep").record().log_path).read_text(errors="replace")
    assert "watermark recovered" in sweep_log, "the blocks were connected, but not by the sweep's repair"


def test_dead_lettered_messages_replayed_complete_their_blocks(
    local_stack_factory: StackFactory, stream: GeneratedStream, stream_dir: Path, reference: TableCells
) -> None:
    # The reconciler waits long and the sweep sends no dead letter back by itself (its own replay is
    # tests/integration/test_dead_letter_replay.py): the command's replay is what must heal. A
    # rejected message comes back at once (a retry policy without backoff), so that the ten
    # deliveries take seconds instead of the production backoff's forty minutes (10 s doubling to 600 s).
    stack = start(
        local_stack_factory,
        stream,
        store_retry_policy=RetryPolicy(0.0, 0.0),
        extra_env={"HEDERA_HISTORY_RECONCILE_AFTER_SECONDS": "3600", "HEDERA_HISTORY_SWEEP_MAX_DEAD_LETTERS": "0"},
    )
    store = stack.function("store")
    store.kill()  # every push fails until the dead-letter policy parks the message
    upload(stack, stream_dir, seed=3)
    state = stack.state
    bridges = stack.bridges
    assert bridges is not None
    wait_until_published(stack, stream)
    # Then until the rejections stop growing: every message used its deliveries and was parked.
    deadline, last, still_since = time.monotonic() + 180, -1, time.monotonic()
    while time.monotonic() < deadline:
        nacked = bridges.stats().store_nacked
        if nacked != last:
            last, still_since = nacked, time.monotonic()
        elif nacked > 0 and time.monotonic() - still_since > 12:
            break
        time.sleep(1)
    store.restart()
    replayed = 0
    reader = HistoryReader(open_gateway_for(state))
    numbers = block_numbers(stream)
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline and len(reader.complete_blocks(numbers)) < len(numbers):
        replayed += replay_dead_letters(state.project, prefix=state.topic_prefix, emulator_host=state.pubsub_host).total
        time.sleep(2)
    assert replayed > 0, "nothing was dead-lettered"
    assert_heals_to_reference(stack, stream_dir, reference, stream, reconciled=False)


def test_duplicates_three_times_shuffled(
    local_stack_factory: StackFactory, stream: GeneratedStream, stream_dir: Path, reference: TableCells
) -> None:
    stack = start(local_stack_factory, stream)
    upload(stack, stream_dir, seed=4, times=3)
    assert_heals_to_reference(stack, stream_dir, reference, stream)


PAUSE_SECONDS = 75
"""Longer than a minute and many times the functions' Bigtable call timeout below: calls time out,
functions answer 503, pushes are nacked and events retried, and the sweep fails its runs."""
BIGTABLE_TIMEOUT_SECONDS = 5
BLOCK_PAUSE_SECONDS = 30
"""The block case's pause: six times the Bigtable call timeout, past the push retry policy's first
two redeliveries (10 s, then 20 s): the store's writes time out, pushes are nacked and redelivered,
the sweep fails its runs. The record case above keeps the longer pause; this one tests what blocks
add, at 45 s less of the suite's wall time."""


def paused(emulator: BigtableEmulator, seconds: float) -> None:
    """The emulator's process group stopped (SIGSTOP) for ``seconds``, then continued."""
    with stopped(emulator):
        time.sleep(seconds)


@contextlib.contextmanager
def stopped(emulator: BigtableEmulator) -> Iterator[None]:
    """The emulator's process group stopped (SIGSTOP) inside the block, continued after it."""
    assert emulator.pid is not None
    os.killpg(emulator.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(emulator.pid, signal.SIGCONT)


def test_bigtable_paused_then_resumed_heals(
    local_stack_factory: StackFactory,
    stream: GeneratedStream,
    stream_dir: Path,
    reference: TableCells,
    pubsub_emulator: Any,
    gcs_emulator: Any,
    bigtable_instance: Any,
    tmp_path: Path,
) -> None:
    with BigtableEmulator(log_dir=tmp_path) as bigtable:
        attached = AttachedEmulators(bigtable.host, pubsub_emulator.host, gcs_emulator.endpoint)
        timeout = {"HEDERA_HISTORY_BIGTABLE_TIMEOUT_SECONDS": str(BIGTABLE_TIMEOUT_SECONDS)}
        stack = start(local_stack_factory, stream, attached=attached, extra_env=timeout)
        upload(stack, stream_dir, seed=5)
        wait_for_some_blocks(stack, stream, 1)
        paused(bigtable, PAUSE_SECONDS)
        assert_heals_to_reference(stack, stream_dir, reference, stream)


def test_pubsub_restarted_heals(
    local_stack_factory: StackFactory,
    stream: GeneratedStream,
    stream_dir: Path,
    reference: TableCells,
    bigtable_emulator: Any,
    gcs_emulator: Any,
    tmp_path: Path,
) -> None:
    pubsub = PubSubEmulator(log_dir=tmp_path).start()
    try:
        attached = AttachedEmulators(bigtable_emulator.host, pubsub.host, gcs_emulator.endpoint)
        stack = start(local_stack_factory, stream, attached=attached)
        try:
            upload(stack, stream_dir, seed=6)
            wait_until_published(stack, stream, at_least=2)  # messages in flight, more to publish
            port = pubsub.port
            pubsub.stop()
            time.sleep(2)
            pubsub = PubSubEmulator(port=port, log_dir=tmp_path).start()
            create_topics(stack.state.project, stack.state.pubsub_host, stack.state.topic_prefix)
            assert_heals_to_reference(stack, stream_dir, reference, stream)
        finally:
            stack.stop()  # before its emulator goes: the bridges hand back what they hold
    finally:
        pubsub.stop()


# ---- block streams: a network that cuts over, its block files uploaded into the stack's bucket ----


@pytest.fixture(scope="module")
def cutover_stream(generated_cutover_stream: GeneratedStream) -> GeneratedStream:
    """Record files 0-2, wrapped record blocks 3-4 (a key rotation in block 4), native blocks 5-7."""
    return generated_cutover_stream


@pytest.fixture(scope="module")
def cutover_dir(generated_cutover_stream_dir: Path) -> Path:
    """The stream written out, its ``ledger-id-publication.bin`` beside it."""
    return generated_cutover_stream_dir


@pytest.fixture(scope="module")
def cutover_reference(cutover_dir: Path, cutover_stream: GeneratedStream, bigtable_client: Any) -> TableCells:
    """The clean run: the record periods and then the block files, as ``load`` writes them."""
    instance = bigtable_client.instance(unique_name("ref"))
    settings = Settings.from_env(
        project=PROJECT,
        bigtable_instance=instance.instance_id,
        table_prefix="ref_",
        ledger_publication=str(cutover_dir / LEDGER_PUBLICATION_FILE),
    )
    ensure_tables(instance, settings)
    gateway = gateway_for_instance(instance, settings)
    book = parse_address_book(cutover_stream.address_book)
    try:
        results = list(verify_stream(find_local_periods(cutover_dir), book))
        blocks = [r.report.block for r in results if r.report.block is not None]
        assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(blocks))
        runs = find_block_runs(cutover_dir)
        report = load_block_runs(runs, book, ratio=DEFAULT_RATIO, settings=settings, gateway=gateway)
        assert report.written == len(cutover_stream.blocks), report
    finally:
        gateway.close()
    return history_cells(PROJECT, instance.instance_id, "ref_")


@pytest.mark.parametrize(
    ("function", "seed"), [pytest.param("ingest", 5, id="ingest"), pytest.param("store", 6, id="store")]
)
def test_block_uploads_shuffled_twice_with_a_function_killed_mid_block_heal(
    local_stack_factory: StackFactory,
    cutover_stream: GeneratedStream,
    cutover_dir: Path,
    cutover_reference: TableCells,
    function: str,
    seed: int,
) -> None:
    """Record periods, then block files uploaded shuffled, each twice, while the ingest or store
    function is killed as the first blocks are published: every block complete once the function is
    back, the tables cell for cell the clean run's."""
    publication = {"HEDERA_HISTORY_LEDGER_PUBLICATION": str(cutover_dir / LEDGER_PUBLICATION_FILE)}
    stack = start(local_stack_factory, cutover_stream, extra_env=publication)
    upload(stack, cutover_dir, seed=seed)
    wait_every_block_complete(stack, cutover_stream, records_only=True)
    names = [name for name in cutover_stream.objects if name.endswith(".blk.zstd")]
    order = random.Random(seed).sample(names, len(names)) + random.Random(seed + 1).sample(names, len(names))
    sink = bucket_sink(stack.state)
    killed = stack.function(function)
    for index, name in enumerate(order):
        sink.write(name, cutover_stream.objects[name])
        if index == 1:
            killed.kill()
    time.sleep(2)
    killed.restart()
    wait_every_block_complete(stack, cutover_stream)
    assert_cells_become(stack, cutover_reference)


def test_block_uploads_with_bigtable_paused_mid_block_heal(
    local_stack_factory: StackFactory,
    cutover_stream: GeneratedStream,
    cutover_dir: Path,
    cutover_reference: TableCells,
    own_bigtable: tuple[BigtableEmulator, AttachedEmulators],
) -> None:
    """Record periods, then the block files uploaded shuffled: once ingest has published every
    block (the store still writing them), the Bigtable emulator is paused (SIGSTOP) for
    ``BLOCK_PAUSE_SECONDS`` (the store's writes time out, pushes are nacked and redelivered, the sweep
    fails its runs), then resumed: every block complete, the tables cell for cell the clean run's."""
    bigtable, attached = own_bigtable
    stack = records_stored(local_stack_factory, cutover_stream, cutover_dir, attached, seed=8)
    blocks = [b.block_number for b in cutover_stream.blocks]
    state = IngestState(open_gateway_for(stack.state))
    sink = bucket_sink(stack.state)
    for block in random.Random(8).sample(cutover_stream.blocks, len(cutover_stream.blocks)):
        sink.write(block.path, cutover_stream.objects[block.path])
    deadline = time.monotonic() + WAIT_SECONDS
    while len(state.links(blocks)) < len(blocks):
        assert time.monotonic() < deadline, f"ingest published only blocks {sorted(state.links(blocks))}"
        time.sleep(0.05)
    paused(bigtable, BLOCK_PAUSE_SECONDS)
    wait_every_block_complete(stack, cutover_stream)
    assert_cells_become(stack, cutover_reference)


@pytest.fixture
def own_bigtable(
    tmp_path: Path, pubsub_emulator: Any, gcs_emulator: Any
) -> Iterator[tuple[BigtableEmulator, AttachedEmulators]]:
    """A Bigtable emulator of the test's own (to pause), beside the shared Pub/Sub and GCS ones."""
    with BigtableEmulator(log_dir=tmp_path) as bigtable:
        yield bigtable, AttachedEmulators(bigtable.host, pubsub_emulator.host, gcs_emulator.endpoint)


def records_stored(
    factory: StackFactory, stream: GeneratedStream, directory: Path, attached: AttachedEmulators, *, seed: int
) -> LocalStack:
    """A stack on ``attached`` emulators (Bigtable calls time out after ``BIGTABLE_TIMEOUT_SECONDS``;
    the stream's ledger publication set), the stream's record periods uploaded and every one complete."""
    env = {
        "HEDERA_HISTORY_BIGTABLE_TIMEOUT_SECONDS": str(BIGTABLE_TIMEOUT_SECONDS),
        "HEDERA_HISTORY_LEDGER_PUBLICATION": str(directory / LEDGER_PUBLICATION_FILE),
    }
    stack = start(factory, stream, attached=attached, extra_env=env)
    upload(stack, directory, seed=seed)
    wait_every_block_complete(stack, stream, records_only=True)
    return stack


def wait_every_block_complete(stack: LocalStack, stream: GeneratedStream, *, records_only: bool = False) -> None:
    """Until the stream's blocks (its record periods only with ``records_only``) are all complete,
    at most ``WAIT_SECONDS``."""
    numbers = [p.block_number for p in stream.periods] + (
        [] if records_only else [b.block_number for b in stream.blocks]
    )
    reader = HistoryReader(open_gateway_for(stack.state))
    deadline = time.monotonic() + WAIT_SECONDS
    while len(reader.complete_blocks(numbers)) < len(numbers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert reader.complete_blocks(numbers) == set(numbers)


def test_block_uploads_whose_events_are_dropped_while_bigtable_is_paused_are_filled_by_the_sweep(
    local_stack_factory: StackFactory,
    cutover_stream: GeneratedStream,
    cutover_dir: Path,
    cutover_reference: TableCells,
    own_bigtable: tuple[BigtableEmulator, AttachedEmulators],
) -> None:
    """Record periods stored, then the Bigtable emulator paused (SIGSTOP) and the block files
    uploaded shuffled: every ingest call for them times out, and the bucket bridge drops each
    block's event after its last attempt. Nothing uploads a block again, so only the sweep, reading
    the block after the stored chain's end from the bucket by its name once Bigtable is back, can
    ingest them: every block complete, the tables cell for cell the clean run's."""
    bigtable, attached = own_bigtable
    stack = records_stored(local_stack_factory, cutover_stream, cutover_dir, attached, seed=9)
    names = [block.path for block in cutover_stream.blocks]
    assert stack.bridges is not None
    events = stack.bridges.events
    assert events is not None
    before = events.stats().dropped
    with stopped(bigtable):
        sink = bucket_sink(stack.state)
        for name in random.Random(9).sample(names, len(names)):
            sink.write(name, cutover_stream.objects[name])
        deadline = time.monotonic() + WAIT_SECONDS
        while events.stats().dropped - before < len(names) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert events.stats().dropped - before >= len(names), "the bridge still delivers some block events"
    resumed = time.monotonic()
    wait_every_block_complete(stack, cutover_stream)
    print(f"every block complete {time.monotonic() - resumed:.1f} s after Bigtable resumed")
    assert_cells_become(stack, cutover_reference)
    sweep_log = Path(stack.function("sweep").record().log_path).read_text(errors="replace")
    assert "block filled by the sweep" in sweep_log, "the blocks were published, but not by the sweep"
