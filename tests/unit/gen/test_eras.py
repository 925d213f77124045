"""Generated streams across every record format era (V1 -> V2 -> V5 -> V6) and with a duplicate
block number: each file parses, the project's own verifier accepts every period, every boundary
links, and the ground truth says what is in the files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import ConfigError
from hedera_history.formats.dispatch import parse_record_file, parse_signature_file
from hedera_history.gen import GeneratedStream, GeneratorConfig, TamperTarget, generate_stream, tamper, write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.chain import LinkStatus
from hedera_history.verify.stream import PeriodResult, verify_stream

ERAS = ((1, 2), (2, 2), (5, 3), (6, 3))
START_BLOCK = 100


@pytest.fixture(scope="module")
def era_stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=10, transactions=12, eras=ERAS, start_block=START_BLOCK))


def _verify(stream: GeneratedStream, folder: Path) -> list[PeriodResult]:
    write_stream(stream, folder)
    book = parse_address_book((folder / "address-book.bin").read_bytes())
    return list(verify_stream(find_local_periods(folder), book, start_block=stream.config.start_block))


def test_each_era_is_written_in_its_format(era_stream: GeneratedStream) -> None:
    versions = [version for version, count in ERAS for _ in range(count)]
    assert [p.version for p in era_stream.periods] == versions
    for index, period in enumerate(era_stream.periods):
        data = era_stream.objects[era_stream.record_path(0, index)]
        name = era_stream.record_path(0, index).rsplit("/", 1)[1]
        record = parse_record_file(data, name)
        signature = parse_signature_file(era_stream.objects[era_stream.signature_path(0, index)], "x.rcd_sig")
        assert record.version == period.version
        assert signature.version == {1: 2, 2: 2, 5: 5, 6: 6}[period.version]
        assert signature.file_hash == record.file_hash == period.file_hash
        assert name.endswith(".rcd.gz" if period.version == 6 else ".rcd")
        assert record.block_number == (START_BLOCK + index if period.version == 6 else None)
        if period.version < 5:
            assert record.metadata_hash is None and signature.metadata_hash is None
            assert record.previous_file_hash == period.previous_file_hash
        else:
            assert signature.metadata_hash == record.metadata_hash == period.metadata_hash
            assert record.computed_end_running_hash == record.end_running_hash == period.end_running_hash
        if period.version != 6:
            assert not period.sidecars


def test_file_hashes_follow_each_version(era_stream: GeneratedStream) -> None:
    v1, v2 = era_stream.periods[0], era_stream.periods[2]
    assert v1.file_hash == hashlib.sha384(v1.record_bytes).digest()
    header, body = v2.record_bytes[:57], v2.record_bytes[57:]
    assert v2.file_hash == hashlib.sha384(header + hashlib.sha384(body).digest()).digest()


def test_every_boundary_links(era_stream: GeneratedStream) -> None:
    periods = era_stream.periods
    assert periods[1].previous_file_hash == periods[0].file_hash  # V1 -> V1
    assert periods[2].previous_file_hash == periods[1].file_hash  # V1 -> V2
    assert periods[4].start_running_hash == periods[3].file_hash  # V2 -> V5: the last V2 file's hash
    assert periods[7].start_running_hash == periods[6].end_running_hash  # V5 -> V6


def test_verify_accepts_every_era(era_stream: GeneratedStream, tmp_path: Path) -> None:
    results = _verify(era_stream, tmp_path)
    assert [r.error for r in results] == [None] * 10
    assert [r.block_number for r in results] == list(range(START_BLOCK, START_BLOCK + 10))
    assert results[0].link is None
    assert all(r.link is not None and r.link.status is LinkStatus.OK for r in results[1:])
    changed = [r.block_number for r in results if r.new_book is not None]
    assert changed == [START_BLOCK + 5]  # the key rotation, in the V5 era


def test_truth_describes_every_era(era_stream: GeneratedStream) -> None:
    truth = era_stream.truth
    assert truth["config"]["eras"] == [list(era) for era in ERAS]
    for block, period in zip(truth["blocks"], era_stream.periods, strict=True):
        assert block["version"] == period.version
        assert block["number"] == period.block_number
        assert block["file_hash"] == period.file_hash.hex()
        assert block["hash"] == period.hash.hex()
        assert block["previous_hash"] == period.previous_hash.hex()
        assert block["hapi_version"] == ("0.0.0" if period.version < 5 else "0.56.0")
        if period.version < 5:
            assert block["metadata_hash"] is None and block["end_running_hash"] is None
    pre_v6 = {b["number"] for b in truth["blocks"] if b["version"] != 6}
    assert all(not t["sidecar_types"] for t in truth["transactions"] if t["block_number"] in pre_v6)
    assert sum(len(b["sidecars"]) for b in truth["blocks"]) == truth["counts"]["sidecar_files"]


def test_generation_is_deterministic(era_stream: GeneratedStream) -> None:
    again = generate_stream(era_stream.config)
    assert again.objects == era_stream.objects
    assert again.truth == era_stream.truth


def test_all_v6_eras_equal_the_default() -> None:
    base = GeneratorConfig(nodes=2, periods=3, transactions=6, rotate_key=False)
    spelled = GeneratorConfig(nodes=2, periods=3, transactions=6, rotate_key=False, eras=((6, 3),))
    assert generate_stream(base).objects == generate_stream(spelled).objects


@pytest.mark.parametrize(
    "eras",
    [((2, 2), (1, 2)), ((5, 2), (5, 2)), ((3, 4),), ((6, 3),), ((2, 0), (6, 4)), ()],
)
def test_bad_eras_are_refused(eras: tuple[tuple[int, int], ...]) -> None:
    with pytest.raises(ConfigError):
        GeneratorConfig(periods=4, eras=eras)


def test_tampering_breaks_legacy_files(era_stream: GeneratedStream, tmp_path: Path) -> None:
    damaged = era_stream
    for node in damaged.nodes:
        damaged = tamper(damaged, node.node_id, 2)  # V2
        damaged = tamper(damaged, node.node_id, 5, TamperTarget.SIGNATURE)  # V5
    results = _verify(damaged, tmp_path)
    assert [i for i, r in enumerate(results) if not r.ok] == [2, 5]


def test_duplicate_block_number(tmp_path: Path) -> None:
    config = GeneratorConfig(
        nodes=4, periods=6, transactions=8, eras=((5, 2), (6, 4)), start_block=10, duplicate_block_at=13
    )
    stream = generate_stream(config)
    assert [p.block_number for p in stream.periods] == [10, 11, 12, 13, 13, 14]
    results = _verify(stream, tmp_path)
    assert [r.error for r in results] == [None] * 6
    assert [r.block_number for r in results] == [10, 11, 12, 13, 13, 14]
    assert all(r.link is not None and r.link.status is LinkStatus.OK for r in results[1:])
    truth = stream.truth
    first, second = stream.periods[3], stream.periods[4]
    assert truth["duplicate_blocks"] == [{"number": 13, "files": [str(first.record_name), str(second.record_name)]}]
    assert second.start_running_hash == first.end_running_hash
    merged = [t["index"] for t in truth["transactions"] if t["block_number"] == 13]
    assert merged == list(range(16))  # the second file's items follow the first's, as the reference merges
    assert truth["counts"]["blocks"] == 5 and len(truth["blocks"]) == 6
    assert [b["number"] for b in truth["blocks"]] == [10, 11, 12, 13, 13, 14]


@pytest.mark.parametrize(("at", "eras"), [(9, None), (15, None), (12, ((5, 3), (6, 3)))])
def test_bad_duplicate_block_is_refused(at: int, eras: tuple[tuple[int, int], ...] | None) -> None:
    with pytest.raises(ConfigError):
        GeneratorConfig(periods=6, start_block=10, duplicate_block_at=at, eras=eras)


def test_stake_updates_and_signers() -> None:
    config = GeneratorConfig(
        nodes=4,
        periods=4,
        transactions=6,
        rotate_key=False,
        stake_updates={1: (60, 10, 10, 20), 3: (0, 0, 0, 0)},
        signers={2: (0,), 3: (1, 3)},
    )
    assert config.stake_updates == ((1, (60, 10, 10, 20)), (3, (0, 0, 0, 0)))
    stream = generate_stream(config)
    record = parse_record_file(stream.objects[stream.record_path(0, 1)], "2024-06-01T00_00_02.0Z.rcd.gz")
    transaction = hapi.Transaction.FromString(record.items[0].transaction_bytes)
    body = hapi.TransactionBody.FromString(
        hapi.SignedTransaction.FromString(transaction.signedTransactionBytes).bodyBytes
    )
    assert body.WhichOneof("data") == "node_stake_update"
    assert body.transactionID.accountID.accountNum == 2
    assert [(s.node_id, s.stake) for s in body.node_stake_update.node_stake] == [(0, 60), (1, 10), (2, 10), (3, 20)]
    day_end = body.node_stake_update.end_of_staking_period
    assert (day_end.seconds + 1) % 86_400 == 0 and day_end.seconds < record.items[0].consensus_ns // 10**9
    assert len(record.items) == 6

    truth = stream.truth
    updates = truth["stake_updates"]
    assert [(u["period"], u["block_number"]) for u in updates] == [(1, 1), (3, 3)]
    assert updates[0]["stakes"] == {"0.0.3": 60, "0.0.4": 10, "0.0.5": 10, "0.0.6": 20}
    stake_items = [t for t in truth["transactions"] if t["type"] == "node_stake_update"]
    assert [t["consensus_ns"] for t in stake_items] == [u["consensus_ns"] for u in updates]
    assert all(t["payer"] == "0.0.2" and t["fee"] == 0 and t["status"] == "SUCCESS" for t in stake_items)
    assert all(t["node"] is None and t["hbar_transfers"] == [] for t in stake_items)

    assert [b["signers"] for b in truth["blocks"]] == [
        ["0.0.3", "0.0.4", "0.0.5", "0.0.6"],
        ["0.0.3", "0.0.4", "0.0.5", "0.0.6"],
        ["0.0.3"],
        ["0.0.4", "0.0.6"],
    ]
    for period, node_ids in ((2, {0}), (3, {1, 3}), (0, {0, 1, 2, 3})):
        signed = {n.node_id for n in stream.nodes if stream.signature_path(n.node_id, period) in stream.objects}
        assert signed == node_ids
        assert all(stream.record_path(n.node_id, period) in stream.objects for n in stream.nodes)


@pytest.mark.parametrize(
    ("stake_updates", "signers"),
    [({4: (1, 1)}, {}), ({0: (1,)}, {}), ({0: (1, -1)}, {}), ({}, {0: (2,)}), ({}, {0: (0, 0)})],
)
def test_bad_stake_updates_and_signers_are_refused(
    stake_updates: dict[int, tuple[int, ...]], signers: dict[int, tuple[int, ...]]
) -> None:
    with pytest.raises(ConfigError):
        GeneratorConfig(nodes=2, periods=4, stake_updates=stake_updates, signers=signers)
