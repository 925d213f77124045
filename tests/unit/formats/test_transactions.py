"""The one Transaction -> TransactionBody decoder, in every form a transaction carries its body."""

from __future__ import annotations

import pytest
from hedera_history import hapi
from hedera_history.errors import CorruptFileError
from hedera_history.formats.transactions import body_bytes, transaction_body


def _forms(body: hapi.TransactionBody) -> dict[str, bytes]:
    serialised = body.SerializeToString()
    signed = hapi.SignedTransaction(bodyBytes=serialised).SerializeToString()
    return {
        "signed": hapi.Transaction(signedTransactionBytes=signed).SerializeToString(),
        "body_bytes": hapi.Transaction(bodyBytes=serialised).SerializeToString(),
        "deprecated_body": hapi.Transaction(body=body).SerializeToString(),
    }


@pytest.mark.parametrize("form", ["signed", "body_bytes", "deprecated_body"])
def test_every_form_gives_the_body(form: str) -> None:
    body = hapi.TransactionBody(memo="three forms")
    assert transaction_body(_forms(body)[form]) == body


def test_body_bytes_of_a_parsed_transaction() -> None:
    body = hapi.TransactionBody(memo="m")
    forms = _forms(body)
    assert body_bytes(hapi.Transaction.FromString(forms["signed"])) == body.SerializeToString()
    assert body_bytes(hapi.Transaction.FromString(forms["body_bytes"])) == body.SerializeToString()
    assert body_bytes(hapi.Transaction.FromString(forms["deprecated_body"])) == b""


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xff\xff",  # not a Transaction
        hapi.Transaction(signedTransactionBytes=b"\x0a\x05\xff").SerializeToString(),  # nor its SignedTransaction
        hapi.Transaction(bodyBytes=b"\x0a\x05\xff").SerializeToString(),  # nor its body
    ],
)
def test_what_does_not_decode_is_corrupt_and_names_the_file(data: bytes) -> None:
    with pytest.raises(CorruptFileError, match="transaction body does not decode") as raised:
        transaction_body(data, "x.rcd")
    assert raised.value.file == "x.rcd"
