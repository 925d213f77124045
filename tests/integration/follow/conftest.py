"""Fixtures shared by the tests of uploaded blocks after the cutover."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen.config_and_output import GeneratedStream

from .harness import Followed, block_bucket, make_followed
from .test_follow_cutover import CUTOVER, RECORD_PERIODS, every_block


@pytest.fixture
def uploads(bigtable_instance: Any, tmp_path: Path, generated_cutover_stream: GeneratedStream) -> Iterator[Followed]:
    """The generated cutover stream in a directory bucket, its record periods followed and stored;
    its block files in the bucket as uploads, none ingested."""
    stream = generated_cutover_stream
    bucket, overrides = block_bucket(tmp_path, stream, **CUTOVER)
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        followed.follower().run(lambda: followed.complete(every_block(stream)[:RECORD_PERIODS]))
        yield followed
