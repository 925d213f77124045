"""LocalSink against the sink contract."""

from __future__ import annotations

from pathlib import Path

from hedera_history.config import Settings
from hedera_history.sources import open_sink

from tests.sink_contract import check_sink_contract


def test_contract_through_open_sink(tmp_path: Path) -> None:
    sink = open_sink(str(tmp_path / "root"), Settings())
    check_sink_contract(sink, lambda name: (tmp_path / "root" / name).read_bytes())
