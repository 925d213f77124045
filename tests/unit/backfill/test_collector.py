"""The collector settings a backfill task runs under, and that they are put back."""

from __future__ import annotations

import gc

import pytest
from hedera_history.backfill.collector import YOUNG_THRESHOLD, task_collector


def test_a_task_freezes_what_was_alive_and_collects_the_young_generation_less_often() -> None:
    before = gc.get_threshold()
    alive_before = [object() for _ in range(3)]
    with task_collector():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    assert alive_before


def test_cycles_made_during_a_task_are_still_collected() -> None:
    class Node:
        def __init__(self) -> None:
            self.other: Node | None = None

    with task_collector():
        first, second = Node(), Node()
        first.other, second.other = second, first
        del first, second
        assert gc.collect() >= 2


def test_the_settings_are_put_back_when_the_task_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), task_collector():
        raise RuntimeError("task failed")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
