"""Accounts named by an EVM address (``GeneratorConfig.tokens``): a CryptoCreate with an ECDSA key
and its address as alias, a lazy create's hollow account, later transfers naming them by number;
the records say what a consensus node's do, in record files and native blocks alike, and the
entity index reads each account's address from them."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hedera_history import hapi
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.evm import keccak256
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import PeriodKind
from hedera_history.gen.evm_accounts import LAZY_CREATION_MEMO
from hedera_history.gen.facts import GeneratedItem
from hedera_history.store.entity_index import creation_aliases

CONFIG = GeneratorConfig(
    nodes=4, periods=8, transactions=60, seed=5, tokens=True, cutover_after=3, wrapped_periods=1, rotate_key=False
)
"""Record files 0-2, wrapped block 3, native blocks 4-7."""


@pytest.fixture(scope="module")
def generated() -> tuple[GeneratedStream, list[GeneratedItem]]:
    items: list[GeneratedItem] = []

    def capture(_period: int, period_items: list[GeneratedItem]) -> list[GeneratedItem]:
        items.extend(period_items)
        return period_items

    return generate_stream(CONFIG, edit_items=capture), items


def _parsed(item: GeneratedItem) -> tuple[Any, Any, Any]:
    signed = hapi.SignedTransaction.FromString(
        hapi.Transaction.FromString(item.transaction_bytes).signedTransactionBytes
    )
    return (
        signed,
        hapi.TransactionBody.FromString(signed.bodyBytes),
        hapi.TransactionRecord.FromString(item.record_bytes),
    )


def _evm_accounts(stream: GeneratedStream) -> dict[int, dict[str, Any]]:
    return {int(a.rsplit(".", 1)[1]): held for a, held in stream.truth["token_state"]["evm_accounts"].items()}


def test_both_ways_of_creating_one_are_played_in_record_files_and_native_blocks(
    generated: tuple[GeneratedStream, list[GeneratedItem]],
) -> None:
    stream, _ = generated
    accounts = _evm_accounts(stream)
    first_native_ns = min(b.timestamp_ns for b in stream.blocks if b.kind is PeriodKind.NATIVE)
    keyed = {held["ecdsa_key"] is not None for held in accounts.values()}
    assert keyed == {True, False}
    assert {held["created_ns"] < first_native_ns for held in accounts.values()} == {True, False}


def test_an_ecdsa_create_names_its_key_s_address_and_is_signed_by_that_key(
    generated: tuple[GeneratedStream, list[GeneratedItem]],
) -> None:
    stream, items = generated
    accounts = _evm_accounts(stream)
    seen = 0
    for item in items:
        signed, body, record = _parsed(item)
        account = record.receipt.accountID.accountNum
        if body.WhichOneof("data") != "cryptoCreateAccount" or accounts.get(account, {}).get("ecdsa_key") is None:
            continue
        expected = accounts[account]
        key = bytes(body.cryptoCreateAccount.key.ECDSA_secp256k1)
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256K1(), key)
        address = keccak256(public.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)[1:])[-20:]
        assert key.hex() == expected["ecdsa_key"] and "0x" + address.hex() == expected["evm_address"]
        assert bytes(body.cryptoCreateAccount.alias) == address == bytes(record.evm_address)
        assert not record.alias and creation_aliases(body, "cryptoCreateAccount", record) == [address]
        pair = next(p for p in signed.sigMap.sigPair if p.WhichOneof("signature") == "ECDSA_secp256k1")
        assert pair.pubKeyPrefix == key
        r, s = int.from_bytes(pair.ECDSA_secp256k1[:32], "big"), int.from_bytes(pair.ECDSA_secp256k1[32:], "big")
        public.verify(encode_dss_signature(r, s), keccak256(signed.bodyBytes), ec.ECDSA(Prehashed(hashes.SHA256())))
        seen += 1
    assert seen == sum(1 for held in accounts.values() if held["ecdsa_key"] is not None)


def test_a_lazy_create_is_a_preceding_child_of_the_transfer_to_the_address(
    generated: tuple[GeneratedStream, list[GeneratedItem]],
) -> None:
    stream, items = generated
    accounts = _evm_accounts(stream)
    seen = 0
    for position, item in enumerate(items):
        _, body, record = _parsed(item)
        account = record.receipt.accountID.accountNum
        if body.WhichOneof("data") != "cryptoCreateAccount" or account not in accounts:
            continue
        if accounts[account]["ecdsa_key"] is not None:
            continue
        address = bytes.fromhex(accounts[account]["evm_address"][2:])
        create = body.cryptoCreateAccount
        assert create.key == hapi.basic_types.Key(keyList=hapi.basic_types.KeyList())
        assert bytes(create.alias) == address == bytes(record.evm_address)
        assert body.memo == record.memo == LAZY_CREATION_MEMO
        assert record.transactionID.nonce == 1 and not record.HasField("parent_consensus_timestamp")
        assert record.transactionFee == 0 and not record.transferList.accountAmounts
        assert creation_aliases(body, "cryptoCreateAccount", record) == [address]
        _, parent_body, parent = _parsed(items[position + 1])
        parent_id = hapi.basic_types.TransactionID()
        parent_id.CopyFrom(record.transactionID)
        parent_id.ClearField("nonce")
        assert parent.transactionID == parent_id and item.facts.consensus_ns < items[position + 1].facts.consensus_ns
        credited = [a for a in parent_body.cryptoTransfer.transfers.accountAmounts if a.amount > 0]
        assert [bytes(a.accountID.alias) for a in credited] == [address]
        assert credited[0].amount in {
            a.amount for a in parent.transferList.accountAmounts if a.accountID.accountNum == account
        }
        seen += 1
    assert seen == sum(1 for held in accounts.values() if held["ecdsa_key"] is None)


def test_later_transfers_name_them_by_number(generated: tuple[GeneratedStream, list[GeneratedItem]]) -> None:
    stream, items = generated
    accounts = _evm_accounts(stream)
    credited = set()
    for item in items:
        _, body, _ = _parsed(item)
        if body.WhichOneof("data") == "cryptoTransfer":
            credited |= {a.accountID.accountNum for a in body.cryptoTransfer.transfers.accountAmounts}
    assert credited & set(accounts)


def test_native_blocks_carry_the_address_in_the_body_and_the_account_s_state(
    generated: tuple[GeneratedStream, list[GeneratedItem]],
) -> None:
    """The block transformer gives the creation back its ``evm_address`` (from the body's alias, as
    the reference does) and the account's state change holds the alias."""
    stream, _ = generated
    accounts = _evm_accounts(stream)
    addresses = {bytes.fromhex(held["evm_address"][2:]) for held in accounts.values()}
    rebuilt, in_state = set(), set()
    for block in stream.blocks:
        if block.kind is not PeriodKind.NATIVE:
            continue
        parsed = parse_block_file(stream.objects[block.path], block.path)
        record_file, _ = native_block_files(parsed)
        for item in record_file.items:
            record = hapi.TransactionRecord.FromString(item.record_bytes)
            if record.receipt.accountID.accountNum in accounts and record.evm_address:
                rebuilt.add(bytes(record.evm_address))
        for raw in parsed.items:
            block_item = BlockItem.FromString(raw.data)
            if block_item.WhichOneof("item") != "state_changes":
                continue
            for change in block_item.state_changes.state_changes:
                value = change.map_update.value
                if value.HasField("account_value") and value.account_value.alias:
                    in_state.add(bytes(value.account_value.alias))
    native = {a for a in addresses if a in rebuilt}
    assert native and native <= in_state
