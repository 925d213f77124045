"""A serialised ``Transaction`` to the ``TransactionBody`` it carries: the one decoder for every reader.

A transaction carries its body in one of three forms, newest first: ``signedTransactionBytes``
(a ``SignedTransaction`` holding ``bodyBytes``), ``bodyBytes`` directly, or the deprecated
``body`` message.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError


def body_bytes(transaction: Any) -> bytes:
    """The serialised body of a parsed ``Transaction`` (empty for the deprecated ``body`` form);
    DecodeError when its ``SignedTransaction`` does not parse."""
    if transaction.signedTransactionBytes:
        data: bytes = hapi.SignedTransaction.FromString(transaction.signedTransactionBytes).bodyBytes
        return data
    return bytes(transaction.bodyBytes)


def transaction_body(transaction_bytes: bytes, name: str = "") -> hapi.TransactionBody:
    """The body of a serialised ``Transaction``; CorruptFileError (naming ``name``) when any layer
    does not decode."""
    try:
        transaction = hapi.Transaction.FromString(transaction_bytes)
        if transaction.signedTransactionBytes or transaction.bodyBytes:
            return hapi.TransactionBody.FromString(body_bytes(transaction))
    except DecodeError as e:
        raise CorruptFileError(f"transaction body does not decode: {e}", file=name or None) from e
    body = hapi.TransactionBody()
    body.CopyFrom(transaction.body)
    return body
