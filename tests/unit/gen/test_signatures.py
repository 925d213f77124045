"""Signature files verify with cryptography against the written address books, and the rotated
node signs with its new key only after the block that published it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from hedera_history import hapi
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream

from tests.unit.gen.helpers import items


def _book_keys(data: bytes) -> dict[str, RSAPublicKey]:
    book = hapi.NodeAddressBook.FromString(data)
    keys: dict[str, RSAPublicKey] = {}
    for entry in book.nodeAddress:
        assert entry.memo.decode() == f"0.0.{entry.nodeAccountId.accountNum}"
        key = serialization.load_der_public_key(bytes.fromhex(entry.RSA_PubKey))
        assert isinstance(key, RSAPublicKey)
        assert key.key_size == 3072 and key.public_numbers().e == 65537
        keys[memo_account(entry)] = key
    return keys


def memo_account(entry: hapi.NodeAddress) -> str:
    return str(entry.memo.decode())


def _verifies(key: RSAPublicKey, signature: bytes, digest: bytes) -> bool:
    try:
        key.verify(signature, digest, padding.PKCS1v15(), hashes.SHA384())
    except InvalidSignature:
        return False
    return True


def test_signature_file_layout(generated_stream: GeneratedStream) -> None:
    data = generated_stream.objects[generated_stream.signature_path(0, 0)]
    assert data[0] == 6
    message = hapi.SignatureFile.FromString(data[1:])
    for signature, digest in (
        (message.file_signature, generated_stream.periods[0].file_hash),
        (message.metadata_signature, generated_stream.periods[0].metadata_hash),
    ):
        assert signature.type == 1
        assert signature.length == 384 == len(signature.signature)
        assert signature.checksum == 101 - 384
        assert signature.hash_object.algorithm == 1
        assert signature.hash_object.length == 48
        assert signature.hash_object.hash == digest


def test_every_signature_verifies_with_the_book_in_force(
    generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    truth = generated_stream.truth
    books = {
        entry["index"]: _book_keys((generated_stream_dir / entry["file"]).read_bytes())
        for entry in truth["address_books"]
    }
    assert (generated_stream_dir / "address-book.bin").read_bytes() == (
        generated_stream_dir / truth["address_books"][0]["file"]
    ).read_bytes()
    for index, block in enumerate(truth["blocks"]):
        keys = books[block["address_book"]]
        for node in generated_stream.nodes:
            message = hapi.SignatureFile.FromString(
                generated_stream.objects[generated_stream.signature_path(node.node_id, index)][1:]
            )
            key = keys[node.account]
            assert _verifies(key, message.file_signature.signature, bytes.fromhex(block["file_hash"]))
            assert _verifies(key, message.metadata_signature.signature, bytes.fromhex(block["metadata_hash"]))


def test_rotation_changes_exactly_one_key(generated_stream: GeneratedStream) -> None:
    truth = generated_stream.truth
    first, second = truth["address_books"]
    assert first["first_block"] == 0 and first["last_block"] == 3
    assert second["first_block"] == 4 and second["last_block"] == 5 and second["updated_in_block"] == 3
    old = _book_keys(generated_stream.address_books[0].book)
    new = _book_keys(generated_stream.address_books[1].book)
    changed = [account for account in old if old[account].public_numbers() != new[account].public_numbers()]
    assert changed == [truth["rotated_node"]] == ["0.0.3"]
    # After the rotation the node's signatures no longer verify with its old key.
    message = hapi.SignatureFile.FromString(generated_stream.objects[generated_stream.signature_path(0, 4)][1:])
    assert not _verifies(old["0.0.3"], message.file_signature.signature, generated_stream.periods[4].file_hash)


def test_rotation_block_carries_the_new_book(generated_stream: GeneratedStream) -> None:
    chunks = []
    for item in items(generated_stream, 3):
        transaction = hapi.Transaction.FromString(item.transaction_bytes)
        body = hapi.TransactionBody.FromString(
            hapi.SignedTransaction.FromString(transaction.signedTransactionBytes).bodyBytes
        )
        kind = body.WhichOneof("data")
        if kind in ("fileUpdate", "fileAppend"):
            operation = getattr(body, kind)
            assert operation.fileID.fileNum == 102
            assert item.record.receipt.status == hapi.ResponseCodeEnum.Value("SUCCESS")
            chunks.append((kind, bytes(operation.contents)))
    assert chunks[0][0] == "fileUpdate"
    assert all(kind == "fileAppend" for kind, _ in chunks[1:]) and len(chunks) >= 2
    assert b"".join(c for _, c in chunks) == generated_stream.address_books[1].book


@pytest.mark.parametrize("periods", [1, 3])
def test_short_streams_do_not_rotate(periods: int) -> None:
    stream = generate_stream(GeneratorConfig(nodes=2, periods=periods, transactions=4))
    assert len(stream.address_books) == 1
    assert stream.truth["rotated_node"] is None
