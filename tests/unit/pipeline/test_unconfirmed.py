"""The reconciler's ``unconfirmed`` mark: what it records survives the round trip, and a damaged
cell is a typed error, not a crash of the sweep."""

from __future__ import annotations

import pytest
from hedera_history.errors import RowDecodeError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.pipeline.state_cells import Unconfirmed
from hedera_history.sources.period_files import StreamLocation


def test_an_unconfirmed_mark_round_trips() -> None:
    location = StreamLocation(BucketLayout.NODE_ID, "recordstreams", "0", 0)
    mark = Unconfirmed(1_700_000_000_000_000_000, "2023-11-14T22_13_20.000000000Z", location, 3, 0)
    back = Unconfirmed.from_json(mark.consensus_ns, mark.to_json(), 1234)
    assert back == Unconfirmed(mark.consensus_ns, mark.period_key, location, 3, 1234)


@pytest.mark.parametrize("raw", [b"", b"{}", b'{"period": "x", "location": {}, "republished": 0}', b"[1]"])
def test_a_damaged_mark_is_a_row_decode_error(raw: bytes) -> None:
    with pytest.raises(RowDecodeError):
        Unconfirmed.from_json(1, raw, 0)
