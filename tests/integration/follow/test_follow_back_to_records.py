"""The follower back on record files when blocks stall after the switch, on the Bigtable emulator
(``follow.record_fallback``, the reference mirror node's ``AUTO``).

- A network at the last release that writes record files (0.79, pinned) has written three record
  periods when a block of a later release shows under the next block's name (another network's:
  its proof checks against no ledger the follower knows, so it is never stored). The follower
  switches to it at once, the block does not advance, and the network goes on writing record
  files: the follower finds the next one, linked to the last one stored, goes back, and stores every
  record period once, its position on record files again; restarted, it resumes there and switches
  again by the same rule when the next such block shows.
- A network that did cut over (a wrapped record block, then native blocks, all stored): when its
  blocks stop and the wrapped period's record file shows in the node folders, linked to the last
  record file stored, the follower stays on blocks and says why.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hedera_history.follow.position import read_position
from hedera_history.gen.config_and_output import GeneratorConfig, node_object_path
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream

from .harness import block_bucket, follow_in_thread, make_followed, period_objects, wait_for
from .test_follow_cutover import every_block

pytestmark = [pytest.mark.emulator]

NETWORK: dict[str, Any] = {
    "nodes": 4,
    "periods": 6,
    "transactions": 8,
    "seed": 13,
    "hapi_version": (0, 79, 0),
    "rotate_key": False,
}
"""Record files at the pinned last record release."""
LATER_RELEASE = (0, 80, 0)
FOLLOW: dict[str, Any] = {
    "follow_poll_seconds": 0.1,
    "follow_cutover_hapi_version": "0.79",
    "follow_cutover_seconds": 0.3,
    "follow_block_alert_seconds": 60.0,
    "follow_block_fallback_seconds": 0.5,
}
RECORDS_BEFORE = 3


def messages(caplog: pytest.LogCaptureFixture, message: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.getMessage() == message]


def test_blocks_that_stall_while_record_files_go_on_send_the_follower_back(
    bigtable_instance: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="hedera_history.follow")
    records = generate_stream(GeneratorConfig(**NETWORK))
    stray = generate_stream(GeneratorConfig(**NETWORK, cutover_after=RECORDS_BEFORE, block_hapi_version=LATER_RELEASE))
    bucket = tmp_path / "bucket"
    write_stream(records, bucket)
    later_keys = {period.record_name.period_key for period in records.periods[RECORDS_BEFORE:]}
    by_period = period_objects(records)
    held_back = {name: data for key in later_keys for name, data in by_period[key].items()}
    for name in held_back:
        (bucket / name).unlink()
    block = stray.blocks[0]
    assert block.block_number == RECORDS_BEFORE
    (bucket / block.path).parent.mkdir(parents=True)
    (bucket / block.path).write_bytes(stray.objects[block.path])
    every = [period.block_number for period in records.periods]

    with make_followed(
        bigtable_instance, tmp_path, records, str(bucket), block_source=str(bucket), **FOLLOW
    ) as followed:
        thread, stop, reports = follow_in_thread(followed.follower())
        try:
            wait_for(
                lambda: (p := read_position(followed.gateway)) is not None and p.next_block == RECORDS_BEFORE,
                what="the switch to the block after the last record file",
            )
            for name, data in held_back.items():
                (bucket / name).write_bytes(data)
            wait_for(lambda: followed.complete(every), what="every record period, after the block that stalled")
        finally:
            stop.set()
            thread.join(60)
        assert followed.publisher.completions() == Counter(every), "every period stored once, none skipped"
        position = read_position(followed.gateway)
        assert position is not None and position.next_block is None, "the position is on record files again"
        assert reports[0].mode == "records"

        # A restarted follower resumes on record files, and switches again by the same rule.
        again = generate_stream(
            GeneratorConfig(**{**NETWORK, "periods": 7}, cutover_after=len(every), block_hapi_version=LATER_RELEASE)
        )
        (bucket / again.blocks[0].path).write_bytes(again.objects[again.blocks[0].path])
        restarted = followed.follower()
        report = restarted.run(lambda: (p := read_position(followed.gateway)) is not None and p.next_block is not None)
        assert report.start_period >= records.periods[RECORDS_BEFORE].record_name.period_key, "resumed on records"
        assert followed.publisher.completions() == Counter(every), "nothing handed off again"
    switched = [r.__dict__["fields"]["block"] for r in messages(caplog, "follower switched to blocks")]
    assert switched == [RECORDS_BEFORE, len(every)]

    back = messages(caplog, "follower back to record files")
    assert len(back) == 1 and back[0].levelno == logging.WARNING
    fields = back[0].__dict__["fields"]
    assert (fields["block"], fields["after_block"]) == (RECORDS_BEFORE, RECORDS_BEFORE - 1)
    assert records.periods[RECORDS_BEFORE].record_name.period_key in fields["record_file"]


def test_blocks_stored_after_the_last_record_file_keep_the_follower_on_blocks(
    bigtable_instance: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="hedera_history.follow")
    config = GeneratorConfig(
        **NETWORK, cutover_after=RECORDS_BEFORE, wrapped_periods=1, block_hapi_version=LATER_RELEASE
    )
    stream = generate_stream(config)
    bucket, overrides = block_bucket(tmp_path, stream, **FOLLOW)
    every = every_block(stream)
    wrapped = stream.blocks[0].record
    assert wrapped is not None
    assert wrapped.start_running_hash == stream.periods[-1].end_running_hash, "the record file would link"

    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        thread, stop, _ = follow_in_thread(followed.follower())
        try:
            wait_for(lambda: followed.complete(every), what="the record periods and every block")
            for node in stream.nodes:  # the wrapped period's record file, as a node would upload it
                path = bucket / node_object_path(config, node, wrapped.record_name)
                path.write_bytes(wrapped.record_bytes)
            ticks = len(messages(caplog, "follower position"))
            # 20 ticks of at least the 0.1 s poll: the stall looked at four times with the file there
            wait_for(lambda: len(messages(caplog, "follower position")) >= ticks + 20, what="20 more ticks")
        finally:
            stop.set()
            thread.join(60)
        assert followed.publisher.completions() == Counter(every)
        position = read_position(followed.gateway)
        assert position is not None and position.next_block == every[-1] + 1

    assert not messages(caplog, "follower back to record files")
    stays = messages(caplog, "follower stays on blocks")
    assert len(stays) == 1 and "is stored: the stream is blocks" in stays[0].__dict__["fields"]["reason"]
