from __future__ import annotations

import pytest
from hedera_history import hapi
from hedera_history.errata.codec import (
    encode_errata_body,
    encode_errata_file,
    parse_errata_file,
    record_stream_item_bytes,
)
from hedera_history.errata.errata_file import CouncilSignature, EntryKind
from hedera_history.errata.synthetic import synthetic_transfer_item
from hedera_history.errors import ErrataFormatError
from hedera_history.formats.wire import repeated_spans, singular_spans
from hedera_history.proto_gen import errata_pb2

from tests.unit.store.builders import BASE_NS, NS, transfer_tx

T1 = BASE_NS + 3 * NS
T2 = BASE_NS + 60 * NS


def test_round_trip_keeps_exact_item_bytes() -> None:
    tx = transfer_tx(T1, 1001, 1002)
    compensating = synthetic_transfer_item(T2, [("0.0.1001", -5), ("0.0.1002", 5)], memo="fix")
    body = encode_errata_body(T1, record_stream_item_bytes(tx.item), [compensating])
    data = encode_errata_file(T2, body)
    errata = parse_errata_file(data, "e")
    assert errata.body.correct_item == tx.item
    assert errata.time_of_error == T1 and errata.consensus_ns == T2
    assert errata.entry_kind is EntryKind.UPDATE
    (item,) = errata.body.compensating_items
    assert item.consensus_ns == T2  # compensations take effect at the errata's time
    assert errata.data == data and len(errata.errata_id) == 32


def test_body_is_wire_identical_to_the_hips_message() -> None:
    """``bytes`` fields holding a serialised RecordStreamItem read as the HIP's sub-messages."""
    tx = transfer_tx(T1, 1001, 1002)
    item = record_stream_item_bytes(tx.item)
    body = encode_errata_body(T1, item, [item])
    (correct_span,) = singular_spans(body, 0, len(body), ((2, "correct_item"),), what="body", name="t")
    assert correct_span is not None
    parsed = hapi.RecordStreamItem.FromString(body[correct_span[0] : correct_span[1]])
    assert parsed.record.consensusTimestamp.seconds == T1 // NS
    assert len(repeated_spans(body, 0, len(body), 3, field="compensating_items", name="t")) == 1
    # The Timestamp has HAPI's field numbers.
    stamp = hapi.Timestamp.FromString(errata_pb2.Timestamp(seconds=5, nanos=7).SerializeToString())
    assert (stamp.seconds, stamp.nanos) == (5, 7)


def test_unset_correct_item_means_remove() -> None:
    errata = parse_errata_file(encode_errata_file(T2, encode_errata_body(T1, None)), "e")
    assert errata.body.correct_item is None and errata.entry_kind is EntryKind.DELETE


def test_adding_a_signature_keeps_the_errata_id() -> None:
    body = encode_errata_body(T1, None)
    plain = parse_errata_file(encode_errata_file(T2, body), "e")
    signed = parse_errata_file(encode_errata_file(T2, body, [CouncilSignature(b"k" * 32, b"s" * 64)]), "e")
    assert plain.errata_id == signed.errata_id and plain.file_hash != signed.file_hash


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xff\xff", "does not parse"),
        (errata_pb2.ErrataFile(version=2).SerializeToString(), "field version"),
        (errata_pb2.ErrataFile(version=1).SerializeToString(), "consensus_time"),
        (encode_errata_file(T1, encode_errata_body(T2, None)), "must come after its time of error"),
        (
            encode_errata_file(T2, encode_errata_body(T1, record_stream_item_bytes(transfer_tx(T1 + 1, 1, 2).item))),
            "expected the time of error",
        ),
        (encode_errata_file(T2, encode_errata_body(T1, b"\x12\x05abc")), "body.correct_item"),
    ],
)
def test_malformed_errata_name_the_field(data: bytes, message: str) -> None:
    with pytest.raises(ErrataFormatError, match=message):
        parse_errata_file(data, "bad.errata")


def test_compensating_transfers_must_balance() -> None:
    with pytest.raises(ErrataFormatError, match="sum to zero"):
        synthetic_transfer_item(T2, [("0.0.1001", -5)])
