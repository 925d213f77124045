"""The collector settings a backfill task runs under (put back after it) and a function instance
settles on once its context is built."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from hedera_history import collector
from hedera_history.collector import YOUNG_THRESHOLD, settle_after_start, task_collector


@pytest.fixture(autouse=True)
def fresh_process() -> Iterator[None]:
    """Each test starts as a process that never settled, with nothing frozen (an earlier test in the
    worker may have built a function context, which settles it), and the worker gets its state back."""
    was_settled, thresholds, was_frozen = collector._settled, gc.get_threshold(), gc.get_freeze_count() > 0
    gc.unfreeze()
    collector._settled = False
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    if was_frozen:
        gc.freeze()
    collector._settled = was_settled


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


def test_a_process_settles_once_after_start(monkeypatch: pytest.MonkeyPatch) -> None:
    before = gc.get_threshold()
    freezes: list[None] = []
    freeze = gc.freeze

    def counted_freeze() -> None:
        freezes.append(None)
        freeze()

    monkeypatch.setattr(gc, "freeze", counted_freeze)
    settle_after_start()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
    assert gc.get_freeze_count() > 0
    settle_after_start()
    assert len(freezes) == 1, "a second call must not freeze again"


def test_a_task_in_a_settled_process_leaves_it_settled() -> None:
    settle_after_start()
    settled = gc.get_threshold()
    frozen = gc.get_freeze_count()
    with task_collector():
        pass
    assert gc.get_threshold() == settled
    assert gc.get_freeze_count() >= frozen > 0


def test_a_process_that_settles_during_a_task_stays_settled_after_it() -> None:
    before = gc.get_threshold()
    with task_collector():
        settle_after_start()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
    assert gc.get_freeze_count() > 0


def test_a_heap_frozen_before_a_task_stays_frozen() -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    with task_collector():
        pass
    assert gc.get_freeze_count() >= frozen > 0
