from __future__ import annotations

import pytest
from hedera_history.errata.errata_paths import errata_path, is_errata_path, parse_errata_path
from hedera_history.errors import FileNameError
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity

T = 1_717_200_004_845_162_399


def test_account_layout_round_trip() -> None:
    where = errata_path(BucketLayout.ACCOUNT, T, prefix="mainnet")
    assert where.errata_file == "mainnet/recordstreams/errata/2024-06-01T00_00_04.845162399Z.errata"
    signature = where.signature_path(NodeIdentity(account="0.0.3"))
    assert signature == "mainnet/recordstreams/record0.0.3/errata/2024-06-01T00_00_04.845162399Z.errata_sig"
    parsed = parse_errata_path(signature)
    assert parsed.is_signature and parsed.node == NodeIdentity(account="0.0.3") and parsed.consensus_ns == T
    assert parsed.errata_file == where.errata_file
    assert parse_errata_path(where.errata_file) == where


def test_node_id_layout_round_trip() -> None:
    where = errata_path(BucketLayout.NODE_ID, T, network="demo")
    assert where.errata_file == "demo/errata/2024-06-01T00_00_04.845162399Z.errata"
    signature = where.signature_path(NodeIdentity(node_id=2))
    assert signature == "demo/0/2/record/errata/2024-06-01T00_00_04.845162399Z.errata_sig"
    parsed = parse_errata_path(signature)
    assert parsed.node == NodeIdentity(node_id=2) and parsed.errata_file == where.errata_file


@pytest.mark.parametrize(
    "path",
    [
        "recordstreams/record0.0.3/2024-06-01T00_00_04.845162399Z.rcd.gz",
        "recordstreams/record0.0.3/2024-06-01T00_00_04.845162399Z.rcd_sig",
        "recordstreams/errata/not-a-time.errata",
        "errata/2024-06-01T00_00_04.845162399Z.errata_sig",
    ],
)
def test_stream_files_are_not_errata(path: str) -> None:
    assert not is_errata_path(path)
    with pytest.raises(FileNameError):
        parse_errata_path(path)
