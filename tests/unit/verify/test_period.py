from __future__ import annotations

from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.errors import (
    ConfigError,
    DecompressionError,
    FormatError,
    HashMismatchError,
    NoConsensusError,
    ObjectNotFoundError,
    RunningHashMismatchError,
    SidecarMismatchError,
)
from hedera_history.formats.hashing import EMPTY_HASH, sha384
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.verify.period import FetchedFile, check_period, verify_period

from .streamkit import (
    MemoryPeriod,
    V6File,
    account,
    record_bytes,
    sidecar,
    transaction_bytes,
    v2_record,
    v2_signature,
    v6_period,
    v6_record,
)

NS = 1657701971304284003
START = sha384(b"start")


def _record(**kwargs: Any) -> V6File:
    return v6_record(NS, start=START, block_number=6, **kwargs)


def test_a_good_period_verifies(node_keys, book):
    car = sidecar(1, NS, types=(1, 3))
    record = _record(
        items=[(transaction_bytes(), record_bytes(NS)), (transaction_bytes(), record_bytes(NS + 1))],
        sidecars=[car],
    )
    period = v6_period(node_keys, record, sidecars=[car])
    block = verify_period(period, book)
    assert block.block_number == 6
    assert block.record.file_hash == record.file_hash and len(block.record.items) == 2
    assert block.consensus.file_hash == record.file_hash and block.consensus.stake == 4
    assert block.consensus.metadata_hash == record.metadata_hash
    assert [s.node_account for s in block.signatures] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]
    assert [s.node_id for s in block.signatures] == [0, 1, 2, 3]
    assert [(s.id, len(s.records)) for s in block.sidecars] == [(1, 2)]
    # only one record copy and one sidecar copy were fetched
    assert [kind for kind, _ in period.fetches].count("record") == 1
    assert [kind for kind, _ in period.fetches].count("sidecar") == 1


def test_a_missing_or_bad_copy_falls_back_to_the_next_node(node_keys, book):
    record = _record()
    period = v6_period(node_keys, record)
    del period.records[account(3)]
    period.records[account(4)] = FetchedFile(record.name, record.data[:-8])  # truncated gzip
    block = verify_period(period, book)
    assert block.record.file_hash == record.file_hash
    assert [node for kind, node in period.fetches if kind == "record"] == [account(3), account(4), account(5)]


def test_a_copy_that_is_not_the_signed_file_is_skipped(node_keys, book):
    record = _record()
    other = v6_record(NS, start=START, block_number=7)
    period = v6_period(node_keys, record)
    period.records[account(3)] = FetchedFile(other.name, other.data)
    assert verify_period(period, book).block_number == 6


def test_when_every_copy_fails_the_first_failure_is_raised(node_keys, book):
    record = _record()
    other = v6_record(NS, start=START, block_number=7)
    period = v6_period(node_keys, record)
    for node in period.records:
        period.records[node] = FetchedFile(other.name, other.data)
    with pytest.raises(HashMismatchError, match="file hash: expected the signed") as caught:
        verify_period(period, book)
    assert caught.value.node == "0.0.3"


def test_corrupt_copies_everywhere(node_keys, book):
    period = v6_period(node_keys, _record())
    for node, fetched in period.records.items():
        period.records[node] = FetchedFile(fetched.name, b"\x1f\x8b" + b"\x00" * 20)
    with pytest.raises(DecompressionError):
        verify_period(period, book)


def test_no_record_copy_at_all(node_keys, book):
    period = v6_period(node_keys, _record(), record_holders=[])
    with pytest.raises(ObjectNotFoundError, match="no record file"):
        verify_period(period, book)


def test_a_record_on_a_node_outside_the_group_is_not_used(node_keys, book):
    record = _record()
    period = v6_period(node_keys, record, record_holders=[6])
    # node 0.0.6 signed something else, so its copy is not from the agreeing group
    period.signatures[account(6)] = FetchedFile(
        "x.rcd_sig", v6_period(node_keys, _record(claimed_end=sha384(b"x"))).signatures[account(6)].data
    )
    with pytest.raises(ObjectNotFoundError):
        verify_period(period, book)


def test_too_few_signatures(node_keys, book):
    period = v6_period(node_keys, _record(), signers=[3])
    report = check_period(period, book)
    assert isinstance(report.error, NoConsensusError)
    assert report.consensus is not None and report.consensus.stake == 1
    assert report.block is None and not report.ok
    assert not [kind for kind, _ in period.fetches if kind == "record"]


def test_a_corrupt_signature_file_is_one_nodes_problem(node_keys, book):
    period = v6_period(node_keys, _record())
    period.signatures[account(3)] = FetchedFile("s.rcd_sig", b"\x06\xff\xff")
    report = check_period(period, book)
    assert report.ok
    assert report.consensus is not None
    assert report.consensus.outcomes["0.0.3"].startswith("unreadable signature file")


def test_a_wrong_signature_key(node_keys, spare_key, book):
    keys = dict(node_keys)
    keys[3] = spare_key
    keys[4] = spare_key
    keys[5] = spare_key
    with pytest.raises(NoConsensusError):
        verify_period(v6_period(keys, _record()), book)
    report = check_period(v6_period(keys, _record()), book)
    assert report.consensus is not None and "bad signature" in report.consensus.outcomes["0.0.3"]


def test_a_signed_file_whose_running_hash_does_not_add_up(node_keys, book):
    record = _record(claimed_end=sha384(b"a lie"))
    report = check_period(v6_period(node_keys, record), book)
    assert isinstance(report.error, RunningHashMismatchError)
    assert report.record is not None and report.record.name == record.name


def test_a_missing_sidecar(node_keys, book):
    car = sidecar(1, NS)
    period = v6_period(node_keys, _record(sidecars=[car]))
    with pytest.raises(SidecarMismatchError, match="missing"):
        verify_period(period, book)


def test_a_sidecar_with_another_hash(node_keys, book):
    car, other = sidecar(1, NS), sidecar(1, NS + 5)
    period = v6_period(node_keys, _record(sidecars=[car]), sidecars=[other])
    with pytest.raises(SidecarMismatchError, match="hash"):
        verify_period(period, book)


def test_one_bad_sidecar_copy_falls_back(node_keys, book):
    car, other = sidecar(1, NS), sidecar(1, NS + 5)
    period = v6_period(node_keys, _record(sidecars=[car]), sidecars=[car])
    period.sidecars[(account(3), 1)] = FetchedFile("s_01.rcd.gz", other.data)
    assert verify_period(period, book).sidecars[0].hash == car.hash


def test_sidecar_types_must_match(node_keys, book):
    car = sidecar(1, NS, types=(1,))
    period = v6_period(node_keys, _record(sidecars=[car], sidecar_types={1: (1, 2)}), sidecars=[car])
    with pytest.raises(SidecarMismatchError, match="types"):
        verify_period(period, book)


def test_a_sidecar_type_this_hapi_does_not_know_still_verifies_by_hash(node_keys, book):
    # A newer network: record field 200 and SidecarType 9 in the metadata, next to a known type.
    car = sidecar(1, NS, types=(2,), unknown_fields=(200,))
    period = v6_period(node_keys, _record(sidecars=[car], sidecar_types={1: (2, 9)}), sidecars=[car])
    block = verify_period(period, book)
    records = block.sidecars[0].records
    assert [r.type for r in records] == [SidecarType.CONTRACT_ACTION, SidecarType.UNKNOWN]
    assert block.record.sidecars[0].types == (2, 9)
    assert hapi.TransactionSidecarRecord.FromString(records[1].raw).WhichOneof("sidecar_records") is None


def test_unknown_types_are_still_held_to_the_promise(node_keys, book):
    # An unknown record the metadata does not announce as any unknown type is the record's fault.
    car = sidecar(1, NS, types=(2,), unknown_fields=(200,))
    period = v6_period(node_keys, _record(sidecars=[car], sidecar_types={1: (2,)}), sidecars=[car])
    with pytest.raises(SidecarMismatchError, match="types"):
        verify_period(period, book)
    # ... and a promised unknown type with no such record.
    plain = sidecar(1, NS, types=(2,))
    period = v6_period(node_keys, _record(sidecars=[plain], sidecar_types={1: (2, 9)}), sidecars=[plain])
    with pytest.raises(SidecarMismatchError, match="types"):
        verify_period(period, book)


def test_sidecars_can_be_switched_off(node_keys, book):
    car = sidecar(1, NS)
    period = v6_period(node_keys, _record(sidecars=[car]))  # sidecar files absent
    block = verify_period(period, book, sidecars=False)
    assert block.sidecars == () and len(block.record.sidecars) == 1
    assert not [kind for kind, _ in period.fetches if kind == "sidecar"]


def test_node_id_identities_work_too(node_keys, book):
    period = v6_period(node_keys, _record())
    renamed = MemoryPeriod(period.period_key)
    for node, fetched in period.signatures.items():
        renamed.signatures[NodeIdentity(node_id=int(str(node.account).split(".")[2]) - 3)] = fetched
    for node, fetched in period.records.items():
        renamed.records[NodeIdentity(node_id=int(str(node.account).split(".")[2]) - 3)] = fetched
    assert verify_period(renamed, book).consensus.stake == 4


def test_v2_periods_need_a_block_number(node_keys, book):
    name, data, file_hash = v2_record(NS, previous_file_hash=EMPTY_HASH)
    period = MemoryPeriod(name.removesuffix(".rcd"))
    for num, key in node_keys.items():
        period.signatures[account(num)] = FetchedFile(f"{period.period_key}.rcd_sig", v2_signature(key, file_hash))
        period.records[account(num)] = FetchedFile(name, data)
    with pytest.raises(ConfigError):
        verify_period(period, book)
    block = verify_period(period, book, block_number=9)
    assert block.block_number == 9 and block.consensus.metadata_hash is None
    assert block.signatures[0].metadata_signature is None


def test_an_unreadable_record_copy_is_reported_with_its_node(node_keys, book):
    period = v6_period(node_keys, _record(), record_holders=[3])
    period.records[account(3)] = FetchedFile("x.rcd", b"\x00\x00\x00\x09")
    with pytest.raises(FormatError) as caught:
        verify_period(period, book)
    assert caught.value.node == "0.0.3"
