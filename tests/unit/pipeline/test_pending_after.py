"""The pending index read from a time on: what a publication uses to find the periods held behind it."""

from __future__ import annotations

from typing import cast

from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.pipeline.period_state import PeriodProgress
from hedera_history.pipeline.state import IngestState, StateGateway
from hedera_history.sources.period_files import StreamLocation

from tests.unit.store.fakes import MemoryGateway

LOCATION = StreamLocation(BucketLayout.ACCOUNT)


def test_pending_after_a_time_starts_strictly_after_it() -> None:
    state = IngestState(cast(StateGateway, MemoryGateway()))  # pending marks and reads only: no delete, no CAS
    for ns in (10, 20, 30):
        PeriodProgress(state, ns, period_key=f"period {ns}", location=LOCATION).defer("held")
    assert [p.consensus_ns for p in state.pending(10)] == [10, 20, 30]
    assert [p.consensus_ns for p in state.pending(1, after=10)] == [20]
    assert [p.consensus_ns for p in state.pending(5, after=19)] == [20, 30]
    assert state.pending(5, after=30) == []
