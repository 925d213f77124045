"""Two blocks of account and contract creations, updates and a deletion, with the aliases records
carry: what the entity index and the account and contract routes are tested on (in memory and on
the emulator alike)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hedera_history import hapi
from hedera_history.block import VerifiedBlock
from hedera_history.formats.parsed_files import SidecarType

from tests.unit.store.builders import (
    BASE_NS,
    NS,
    Tx,
    account,
    body,
    contract,
    make_block,
    make_sidecar,
    record_for,
    signed_transaction_bytes,
    timestamp,
)

ED25519_FIRST = bytes(range(32))
ED25519_SECOND = bytes(range(100, 132))
ECDSA = bytes([2]) + bytes(range(1, 33))
EVM_OF_ECDSA = bytes.fromhex("d8da6bf26964af9d7eed9e03e53415d37aa96045")
LAZY_ADDRESS = bytes.fromhex("ab" * 20)
CONTRACT_ADDRESS = bytes.fromhex("cd" * 20)
INITCODE = b"\x60\x80\x60\x40" * 8
RUNTIME = b"\x60\x80" * 12
CREATED, UPDATED = BASE_NS + NS, BASE_NS + 100 * NS


@dataclass(frozen=True)
class Entities:
    blocks: tuple[VerifiedBlock, ...]
    account: str = "0.0.2001"
    """Created with ``ED25519_FIRST`` and memo ``first``; updated at ``UPDATED`` to ``ED25519_SECOND``, ``second``."""
    aliased: str = "0.0.2002"
    """Auto-created by its ECDSA key alias, with the key's EVM address."""
    lazy: str = "0.0.2003"
    """Lazy-created by an EVM address, then deleted."""
    contract: str = "0.0.2004"
    """Created with a 2-of-2 threshold admin key, memo ``c``, from file 0.0.111, at ``CONTRACT_ADDRESS``."""


def ed25519(public: bytes) -> Any:
    return hapi.basic_types.Key(ed25519=public)


def ecdsa_alias() -> bytes:
    return bytes(hapi.basic_types.Key(ECDSA_secp256k1=ECDSA).SerializeToString())


def threshold_key() -> Any:
    key = hapi.basic_types.Key()
    key.thresholdKey.threshold = 2
    key.thresholdKey.keys.keys.add().ed25519 = ED25519_FIRST
    key.thresholdKey.keys.keys.add().ed25519 = ED25519_SECOND
    return key


def _tx(consensus_ns: int, b: Any, configure: Any, status: int = 22) -> Tx:
    tx_bytes = signed_transaction_bytes(b)
    record = record_for(b, consensus_ns, tx_bytes, status=status, configure=configure)
    return Tx(consensus_ns, tx_bytes, bytes(record.SerializeToString()))


def entities() -> Entities:
    create = body(1001, CREATED - 5 * NS)
    create.cryptoCreateAccount.key.CopyFrom(ed25519(ED25519_FIRST))
    create.cryptoCreateAccount.memo = "first"

    auto = body(1001, CREATED - 4 * NS)
    auto.cryptoCreateAccount.key.ECDSA_secp256k1 = ECDSA

    def auto_record(r: Any) -> None:
        r.receipt.accountID.CopyFrom(account(2002))
        r.alias = ecdsa_alias()
        r.evm_address = EVM_OF_ECDSA

    lazy = body(1001, CREATED - 3 * NS)
    lazy.cryptoCreateAccount.alias = LAZY_ADDRESS

    make = body(1001, CREATED - 2 * NS)
    make.contractCreateInstance.adminKey.CopyFrom(threshold_key())
    make.contractCreateInstance.memo = "c"
    make.contractCreateInstance.fileID.fileNum = 111

    def contract_record(r: Any) -> None:
        r.receipt.contractID.CopyFrom(contract(2004))
        r.contractCreateResult.contractID.CopyFrom(contract(2004))
        r.contractCreateResult.evm_address.value = CONTRACT_ADDRESS

    bytecode = hapi.TransactionSidecarRecord(consensus_timestamp=timestamp(CREATED + 3))
    bytecode.bytecode.contract_id.CopyFrom(contract(2004))
    bytecode.bytecode.initcode = INITCODE
    bytecode.bytecode.runtime_bytecode = RUNTIME
    sidecar = make_sidecar(1, [(CREATED + 3, SidecarType.CONTRACT_BYTECODE, bytes(bytecode.SerializeToString()))])
    first = make_block(
        0,
        [
            _tx(CREATED, create, lambda r: r.receipt.accountID.CopyFrom(account(2001))),
            _tx(CREATED + 1, auto, auto_record),
            _tx(CREATED + 2, lazy, lambda r: r.receipt.accountID.CopyFrom(account(2003))),
            _tx(CREATED + 3, make, contract_record),
        ],
        sidecars=[sidecar],
    )

    update = body(2001, UPDATED - 5 * NS)
    update.cryptoUpdateAccount.accountIDToUpdate.CopyFrom(account(2001))
    update.cryptoUpdateAccount.key.CopyFrom(ed25519(ED25519_SECOND))
    update.cryptoUpdateAccount.memo.value = "second"
    refused = body(2001, UPDATED - 4 * NS)
    refused.cryptoUpdateAccount.accountIDToUpdate.CopyFrom(account(2001))
    refused.cryptoUpdateAccount.key.CopyFrom(ed25519(bytes(32)))
    delete = body(2003, UPDATED - 3 * NS)
    delete.cryptoDelete.deleteAccountID.CopyFrom(account(2003))
    delete.cryptoDelete.transferAccountID.CopyFrom(account(1001))
    second = make_block(
        1,
        [
            _tx(UPDATED, update, None),
            _tx(UPDATED + 1, refused, None, status=7),  # INVALID_SIGNATURE: changes nothing
            _tx(UPDATED + 2, delete, None),
        ],
    )
    return Entities((first, second))
