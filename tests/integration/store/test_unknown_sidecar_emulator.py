"""A sidecar type the HAPI protobufs do not know yet, on the Bigtable emulator: the verified period
is written, its record file is kept as the signed bytes, and the unknown record is served raw."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.api import handle
from hedera_history.api.render import timestamp
from hedera_history.books.address_book import address_book_from_keys
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.verify.period import verify_period

from tests.integration.store.conftest import Store
from tests.unit.verify.streamkit import (
    record_bytes,
    sidecar,
    transaction_bytes,
    unknown_sidecar_record,
    v6_period,
    v6_record,
)

pytestmark = [pytest.mark.emulator]

NS = 1657701971304284003


def test_an_unknown_sidecar_type_is_stored_and_served_raw(store: Store) -> None:
    keys = {num: rsa.generate_private_key(public_exponent=65537, key_size=2048) for num in (3, 4, 5)}
    book = address_book_from_keys((f"0.0.{num}", key.public_key()) for num, key in keys.items())
    car = sidecar(1, NS, types=(int(SidecarType.CONTRACT_STATE_CHANGE),), unknown_fields=(200,))
    record = v6_record(
        NS,
        start=sha384(b"start"),
        block_number=9,
        items=[(transaction_bytes(), record_bytes(NS)), (transaction_bytes(), record_bytes(NS + 1))],
        sidecars=[car],
        sidecar_types={1: (int(SidecarType.CONTRACT_STATE_CHANGE), 9)},
    )
    block = verify_period(v6_period(keys, record, sidecars=[car]), book)
    assert all(result.complete for result in store.writer.write_blocks([block]))

    stored = store.reader.block_file(9)
    assert stored is not None and stored.kind != "items", "the record file is kept as its signed bytes"
    assert parse_record_file(stored.data, record.name.removesuffix(".gz")).sidecars[0].types == (1, 9)

    def get(path: str) -> Any:
        response = handle(lambda: store.reader, "GET", path, {}, b"")
        assert response.status == 200, response.body
        return response.body

    served = get(f"/api/v1/contracts/results/{timestamp(NS + 1)}/sidecars")["sidecars"]
    assert [(r["type"], r["field"]) for r in served] == [("UNKNOWN", 200)]
    assert served[0]["raw"] == "0x" + unknown_sidecar_record(NS + 1, 200).hex()
    assert get(f"/api/v1/contracts/results/{timestamp(NS)}/state")["state_changes"] == []
