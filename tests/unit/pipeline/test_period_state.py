"""A period's progress as one state machine: every step the table does not allow is refused with
IllegalTransitionError before anything is written; the allowed ones write the cells of their stage."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from hedera_history.errors import IllegalTransitionError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.pipeline.period_state import (
    ERRATA_TRANSITIONS,
    PERIOD_TRANSITIONS,
    ErrataProgress,
    PeriodProgress,
    Stage,
    Transition,
    stage_of,
)
from hedera_history.pipeline.state import IngestState, StateGateway
from hedera_history.pipeline.state_cells import PERIOD, Published
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store import schema as s
from hedera_history.store.keys import hex16

from tests.unit.store.fakes import ConditionalMemoryGateway

LOCATION = StreamLocation(BucketLayout.ACCOUNT)
PERIOD_KEY = "2024-01-01T00_00_02.000000000Z"
PUBLISHED = Published(7, b"\x01" * 48, b"\x02" * 48, b"\x03" * 48, 1_704_067_202_000_000_000)


class StateMemoryGateway(ConditionalMemoryGateway):
    """Deletes whole rows too, as the ingest state does."""

    def __init__(self) -> None:
        super().__init__()
        self.deleted: list[tuple[str, list[bytes]]] = []

    def delete_rows(self, table: str, keys: Sequence[bytes]) -> None:
        self.deleted.append((table, list(keys)))
        for key in keys:
            self.tables.get(table, {}).pop(key, None)


def new_state() -> tuple[IngestState, StateMemoryGateway]:
    gateway = StateMemoryGateway()
    return IngestState(cast(StateGateway, gateway)), gateway


def period_at(state: IngestState, stage: Stage) -> PeriodProgress:
    progress = PeriodProgress.of(state, PERIOD_KEY, LOCATION, stage)
    progress.published = PUBLISHED
    return progress


PERIOD_STEPS: dict[Transition, Callable[[PeriodProgress], Any]] = {
    Transition.CLAIM: lambda p: p.claim(),
    Transition.DEFER: lambda p: p.defer("why"),
    Transition.VERIFY: lambda p: p.start_verifying(),
    Transition.PUBLISH: lambda p: p.publish(PUBLISHED),
    Transition.SETTLE: lambda p: p.settle(),
    Transition.AWAIT_RECHECK: lambda p: p.await_recheck(7),
    Transition.RECHECKED: lambda p: p.rechecked(),
    Transition.REPUBLISH: lambda p: p.republish(1),
    Transition.COMPLETE: lambda p: p.complete(),
    Transition.UNTRACK: lambda p: p.untrack(),
    Transition.FORGET: lambda p: p.forget(),
}
ERRATA_STEPS: dict[Transition, Callable[[ErrataProgress], Any]] = {
    Transition.CLAIM: lambda p: p.claim(),
    Transition.DEFER: lambda p: p.defer("why"),
    Transition.COMPLETE: lambda p: p.complete(),
}


def _sources(table: Mapping[Transition, frozenset[tuple[Stage, Stage]]], transition: Transition) -> set[Stage]:
    return {source for source, _ in table.get(transition, frozenset())}


def _illegal(table: Any, steps: dict[Transition, Any]) -> list[tuple[Transition, Stage]]:
    return [(t, stage) for t in steps for stage in Stage if stage not in _sources(table, t)]


def test_every_period_step_has_a_method_and_release_is_the_only_one_taken_implicitly() -> None:
    assert set(PERIOD_TRANSITIONS) == set(PERIOD_STEPS) | {Transition.RELEASE}
    assert set(ERRATA_TRANSITIONS) == set(ERRATA_STEPS) | {Transition.RELEASE}


@pytest.mark.parametrize(("transition", "stage"), _illegal(PERIOD_TRANSITIONS, PERIOD_STEPS))
def test_an_illegal_period_step_is_refused_before_anything_is_written(transition: Transition, stage: Stage) -> None:
    state, gateway = new_state()
    progress = period_at(state, stage)
    with pytest.raises(IllegalTransitionError, match=transition.value):
        PERIOD_STEPS[transition](progress)
    assert progress.stage is stage
    assert gateway.tables == {} and gateway.mutate_calls == [] and gateway.deleted == []


@pytest.mark.parametrize(("transition", "stage"), _illegal(ERRATA_TRANSITIONS, ERRATA_STEPS))
def test_an_illegal_errata_step_is_refused_before_anything_is_written(transition: Transition, stage: Stage) -> None:
    state, gateway = new_state()
    progress = ErrataProgress(state, 5, stage, errata_path="errata/x")
    with pytest.raises(IllegalTransitionError, match=transition.value):
        ERRATA_STEPS[transition](progress)
    assert progress.stage is stage
    assert gateway.tables == {} and gateway.mutate_calls == [] and gateway.deleted == []


@pytest.mark.parametrize("kind", ["period", "errata"])
def test_every_pair_outside_the_table_is_refused(kind: str) -> None:
    state, _ = new_state()
    table = PERIOD_TRANSITIONS if kind == "period" else ERRATA_TRANSITIONS
    for transition in Transition:
        for source in Stage:
            progress = period_at(state, source) if kind == "period" else ErrataProgress(state, 5, source)
            for target in Stage:
                if (source, target) in table.get(transition, frozenset()):
                    progress._check(transition, target)
                else:
                    with pytest.raises(IllegalTransitionError):
                        progress._check(transition, target)


def test_a_period_goes_from_new_to_complete_through_its_cells() -> None:
    state, _ = new_state()
    progress = PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.PENDING).refresh()
    assert stage_of(state.period(progress.consensus_ns)) is Stage.NEW
    assert progress.claim()
    assert not period_at(state, Stage.NEW).claim(), "another run waits while the claim is live"
    progress.start_verifying()
    [trace] = state.unconfirmed(10)
    assert (trace.period_key, trace.republished) == (PERIOD_KEY, 0)
    progress.defer("held for now")
    progress.release()
    assert progress.stage is Stage.PENDING
    assert [p.period_key for p in state.pending(10)] == [PERIOD_KEY]
    assert stage_of(state.period(progress.consensus_ns)) is Stage.PENDING

    again = PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.NEW).refresh()
    assert again.stage is Stage.PENDING and again.reason == "held for now"
    assert again.claim(), "the claim was let go"
    again.publish(PUBLISHED)
    again.release()
    assert state.pending(10) == []
    known = state.period(again.consensus_ns)
    assert known is not None and known.published == PUBLISHED
    assert stage_of(known) is Stage.PUBLISHED

    reconciled = PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.PUBLISHED)
    reconciled.republish(1)
    assert [t.republished for t in state.unconfirmed(10)] == [1]
    reconciled.complete()
    assert state.unconfirmed(10) == []
    assert reconciled.stage is Stage.COMPLETE


def test_a_run_that_decides_nothing_leaves_the_period_as_it_found_it() -> None:
    state, _ = new_state()
    PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.NEW).defer("waiting")
    progress = PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.NEW).refresh()
    assert progress.claim()
    progress.release()
    assert progress.stage is Stage.PENDING
    assert state.claim_cell(PERIOD + hex16(progress.consensus_ns)) == b""
    assert period_at(state, Stage.PENDING).claim()


def test_a_run_whose_claim_expired_does_not_empty_the_claim_another_took() -> None:
    state, gateway = new_state()
    slow = period_at(state, Stage.NEW)
    assert slow.claim(ttl_seconds=0)  # expires at once
    fast = period_at(state, Stage.NEW)
    assert fast.claim()
    slow.release()
    [(_, cell)] = [(k, v) for k, v in gateway.tables[s.INGEST_PROGRESS].items() if k.startswith(b"period/")]
    owner_and_expiry = cell[(s.INGEST_PROGRESS_FAMILY, b"claim")][1]
    assert owner_and_expiry.split(b" ")[0] == fast._owner.encode()


def test_a_found_published_period_drops_a_pending_mark_written_meanwhile() -> None:
    state, _ = new_state()
    PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.NEW).defer("another run kept the claim")
    progress = period_at(state, Stage.PUBLISHED)
    assert progress.settle() == PUBLISHED
    assert state.pending(10) == []


def test_errata_of_one_time_are_claimed_deferred_and_completed() -> None:
    state, _ = new_state()
    errata = ErrataProgress(state, 5, errata_path="errata/x")
    assert errata.claim()
    assert not ErrataProgress(state, 5, errata_path="errata/x").claim()
    errata.defer("too little stake so far")
    errata.release()
    assert state.errata_pending(10) == [(5, "errata/x")]
    retry = ErrataProgress(state, 5, Stage.PENDING, errata_path="errata/x")
    assert retry.claim()
    retry.complete()
    retry.release()
    assert state.errata_pending(10) == []
    assert retry.stage is Stage.COMPLETE


def test_the_documented_transition_table_is_the_code_s() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "pipeline.md").read_text()
    table = doc.split("| transition | from | to | what it writes |", 1)[1].split("\n\n", 1)[0]
    documented: set[tuple[Transition, Stage, Stage]] = set()
    for line in table.strip().splitlines()[1:]:
        name, sources, targets = (cell.strip() for cell in line.strip("|").split("|")[:3])
        for source in sources.split(", "):
            for target in targets.split(", "):
                documented.add((Transition(name), Stage(source), Stage(source if target == "same" else target)))
    assert documented == {(t, source, to) for t, edges in PERIOD_TRANSITIONS.items() for source, to in edges}


def test_a_published_cell_keeps_its_signers_and_one_written_without_them_reads_as_none() -> None:
    signed = replace(PUBLISHED, signers=frozenset({"0.0.3", "0.0.4"}))
    assert Published.from_json(signed.to_json()) == signed
    before_signers = b'{"block": 7, "block_time_ns": 5, "file_hash": "01", "hash": "02", "previous_hash": "03"}'
    assert Published.from_json(before_signers).signers == frozenset()
