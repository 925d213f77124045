"""A period's files read from a source by the layout's paths, named from the key as written."""

from __future__ import annotations

from pathlib import Path

from hedera_history.config import Settings
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity
from hedera_history.sources.base import open_source
from hedera_history.sources.period_files import SourcePeriod, StreamLocation


def test_a_key_with_fewer_than_nine_fraction_digits_names_its_files_as_written(tmp_path: Path) -> None:
    key = "2019-09-13T21_53_32.856974Z"
    folder = tmp_path / "recordstreams" / "record0.0.3"
    folder.mkdir(parents=True)
    (folder / f"{key}.rcd_sig").write_bytes(b"sig")
    (folder / f"{key}.rcd").write_bytes(b"record")
    source = open_source(str(tmp_path), Settings())
    node = NodeIdentity(account="0.0.3")
    period = SourcePeriod(source, StreamLocation(BucketLayout.ACCOUNT), key, [node])
    signature, record = period.signature(node), period.record(node)
    assert signature is not None and signature.data == b"sig" and signature.name == f"{key}.rcd_sig"
    assert record is not None and record.data == b"record" and record.name == f"{key}.rcd"
    assert period.sidecar(node, 1) is None
