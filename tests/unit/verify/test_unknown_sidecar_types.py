"""A sidecar type the HAPI protobufs do not know yet: verified by hash, stored raw, served as UNKNOWN.

The period is a V6 file whose SidecarMetadata promises ``CONTRACT_ACTION`` and type 9 (not in
``SidecarType``), and a sidecar holding an actions record and a record whose payload is field 200
of ``TransactionSidecarRecord`` (not in this HAPI version), as a newer network would write them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history import hapi
from hedera_history.api import handle
from hedera_history.api.render import timestamp
from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.config import Settings
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store.originals import signed_file_bytes
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.period import verify_period

from tests.unit.store.fakes import MemoryGateway

from .streamkit import record_bytes, sidecar, transaction_bytes, unknown_sidecar_record, v6_period, v6_record

NS = 1657701971304284003
UNKNOWN_FIELD = 200
UNKNOWN_TYPE = 9


@pytest.fixture(scope="module")
def block(node_keys: dict[int, rsa.RSAPrivateKey], book: AddressBook) -> VerifiedBlock:
    car = sidecar(1, NS, types=(int(SidecarType.CONTRACT_ACTION),), unknown_fields=(UNKNOWN_FIELD,))
    record = v6_record(
        NS,
        start=sha384(b"start"),
        block_number=7,
        items=[(transaction_bytes(), record_bytes(NS)), (transaction_bytes(), record_bytes(NS + 1))],
        sidecars=[car],
        sidecar_types={1: (int(SidecarType.CONTRACT_ACTION), UNKNOWN_TYPE)},
    )
    return verify_period(v6_period(node_keys, record, sidecars=[car]), book)


def test_the_period_verifies_and_keeps_the_unknown_record_raw(block: VerifiedBlock) -> None:
    assert block.record.sidecars[0].types == (int(SidecarType.CONTRACT_ACTION), UNKNOWN_TYPE)
    records = block.sidecars[0].records
    assert [r.type for r in records] == [SidecarType.CONTRACT_ACTION, SidecarType.UNKNOWN]
    assert records[1].raw == unknown_sidecar_record(NS + 1, UNKNOWN_FIELD)
    # The record file (with its unknown metadata type) is kept as the exact signed bytes.
    assert signed_file_bytes(block.record) is not None


def test_it_is_stored_and_served_as_unknown_with_its_field_and_bytes(block: VerifiedBlock) -> None:
    gateway = MemoryGateway()
    BlockWriter(gateway, Settings()).write_blocks([block])
    reader = HistoryReader(gateway)

    def get(path: str) -> Any:
        response = handle(lambda: reader, "GET", path, {}, b"")
        assert response.status == 200, response.body
        json.dumps(response.body)
        return response.body

    base = "/api/v1/contracts/results"
    served = get(f"{base}/{timestamp(NS)}/sidecars")["sidecars"]
    assert [(r["type"], r["field"], r["sidecar_id"], r["index"]) for r in served] == [("CONTRACT_ACTION", 4, 1, 0)]
    unknown = get(f"{base}/{timestamp(NS + 1)}/sidecars")["sidecars"]
    assert unknown == [
        {
            "field": UNKNOWN_FIELD,
            "index": 1,
            "migration": False,
            "raw": "0x" + unknown_sidecar_record(NS + 1, UNKNOWN_FIELD).hex(),
            "sidecar_id": 1,
            "timestamp": timestamp(NS + 1),
            "type": "UNKNOWN",
        }
    ]
    parsed = hapi.TransactionSidecarRecord.FromString(bytes.fromhex(unknown[0]["raw"][2:]))
    assert parsed.consensus_timestamp.nanos == (NS + 1) % 1_000_000_000
    # The typed routes go on serving what they know and skip what they do not.
    assert get(f"{base}/{timestamp(NS + 1)}/actions")["actions"] == []
    assert len(get(f"{base}/{timestamp(NS)}/actions")["actions"]) == 1
