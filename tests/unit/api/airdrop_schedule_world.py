"""Hand-built HAPI transactions and records of airdrops (made pending, added to, claimed, cancelled)
and schedules (created, signed, executed, deleted) in verified blocks, and what the reference's
routes answer for them: what the airdrop and schedule routes are tested on, in memory and on the
emulator."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from hedera_history import hapi
from hedera_history.block import VerifiedBlock

from tests.unit.store.builders import BASE_NS, NS, Tx, account, body, make_block, record_for, timestamp

FUNGIBLE = 5000
NFT = 6000
SENDER, OTHER_SENDER = 1001, 1002
RECEIVER, CLAIMER = 2001, 2002
SCHEDULE, DELETED_SCHEDULE = 7000, 7001
T0 = BASE_NS + 1000 * NS
"""The first transaction's consensus time; the others follow a second apart."""
ED_KEY = bytes(range(32))


def at(step: int) -> int:
    return T0 + step * NS


def token(num: int) -> Any:
    return hapi.basic_types.TokenID(shardNum=0, realmNum=0, tokenNum=num)


def pending_id(sender: int, receiver: int, token_num: int, serial: int = 0) -> Any:
    pending = hapi.basic_types.PendingAirdropId(sender_id=account(sender), receiver_id=account(receiver))
    if serial:
        pending.non_fungible_token.token_ID.CopyFrom(token(token_num))
        pending.non_fungible_token.serial_number = serial
    else:
        pending.fungible_token_type.CopyFrom(token(token_num))
    return pending


def signed(transaction_body: Any, signers: tuple[bytes, ...] = ()) -> bytes:
    """The transaction with an ED25519 signature pair per public key prefix in ``signers``."""
    transaction = hapi.SignedTransaction(bodyBytes=transaction_body.SerializeToString())
    for prefix in signers:
        transaction.sigMap.sigPair.add(pubKeyPrefix=prefix, ed25519=prefix * 2)
    return bytes(hapi.Transaction(signedTransactionBytes=transaction.SerializeToString()).SerializeToString())


def tx(
    step: int,
    payer: int,
    fill_body: Callable[[Any], None],
    fill_record: Callable[[Any], None] | None = None,
    *,
    status: int = 22,
    signers: tuple[bytes, ...] = (),
    scheduled: bool = False,
) -> Tx:
    consensus = at(step)
    b = body(payer, consensus - 3 * NS)
    b.transactionID.scheduled = scheduled
    fill_body(b)
    transaction_bytes = signed(b, signers)
    record = record_for(b, consensus, transaction_bytes, status=status, configure=fill_record)
    return Tx(consensus, transaction_bytes, bytes(record.SerializeToString()))


def airdrop(step: int, sender: int, pending: list[tuple[Any, int]], *, status: int = 22) -> Tx:
    """A TokenAirdrop whose record leaves ``pending`` (PendingAirdropId, amount) pending."""

    def fill_body(b: Any) -> None:
        b.tokenAirdrop.token_transfers.add().token.CopyFrom(token(FUNGIBLE))

    def fill_record(record: Any) -> None:
        for found, amount in pending:
            added = record.new_pending_airdrops.add()
            added.pending_airdrop_id.CopyFrom(found)
            if amount:
                added.pending_airdrop_value.amount = amount

    return tx(step, sender, fill_body, fill_record, status=status)


def resolve(step: int, payer: int, case: str, pending: list[Any]) -> Tx:
    return tx(step, payer, lambda b: getattr(b, case).pending_airdrops.extend(pending))


def schedule_create(step: int, payer: int, schedule: int, signers: tuple[bytes, ...], **fields: Any) -> Tx:
    def fill_body(b: Any) -> None:
        create = b.scheduleCreate
        create.scheduledTransactionBody.memo = f"inner {schedule}"
        create.scheduledTransactionBody.transactionFee = 100
        for name, value in fields.items():
            if name == "schedule_payer":
                create.payerAccountID.CopyFrom(account(value))
            elif name == "expires_ns":
                create.expiration_time.CopyFrom(timestamp(value))
            elif name == "admin_key":
                create.adminKey.ed25519 = value
            else:
                setattr(create, name, value)

    def fill_record(record: Any) -> None:
        record.receipt.scheduleID.scheduleNum = schedule

    return tx(step, payer, fill_body, fill_record, signers=signers)


def schedule_change(step: int, payer: int, case: str, schedule: int, signers: tuple[bytes, ...] = ()) -> Tx:
    return tx(step, payer, lambda b: getattr(b, case).scheduleID.CopyFrom(_schedule_id(schedule)), signers=signers)


def executed(step: int, payer: int, schedule: int) -> Tx:
    def fill_record(record: Any) -> None:
        record.scheduleRef.CopyFrom(_schedule_id(schedule))

    return tx(step, payer, lambda b: b.cryptoTransfer.SetInParent(), fill_record, scheduled=True)


def _schedule_id(num: int) -> Any:
    return hapi.basic_types.ScheduleID(shardNum=0, realmNum=0, scheduleNum=num)


def world_blocks() -> list[VerifiedBlock]:
    """Two blocks: the airdrops, then the schedules and the airdrops' resolutions."""
    first = [
        airdrop(
            0,
            SENDER,
            [
                (pending_id(SENDER, RECEIVER, FUNGIBLE), 10),
                (pending_id(SENDER, CLAIMER, FUNGIBLE), 20),
                (pending_id(SENDER, RECEIVER, NFT, 1), 0),
                (pending_id(SENDER, RECEIVER, NFT, 2), 0),
            ],
        ),
        airdrop(1, SENDER, [(pending_id(SENDER, RECEIVER, FUNGIBLE), 15)]),  # 5 more: 15 pending
        airdrop(2, OTHER_SENDER, [(pending_id(OTHER_SENDER, RECEIVER, FUNGIBLE), 7)]),
        airdrop(3, SENDER, [(pending_id(SENDER, CLAIMER, NFT, 3), 0)], status=7),  # failed: nothing pending
    ]
    second = [
        resolve(10, CLAIMER, "tokenClaimAirdrop", [pending_id(SENDER, CLAIMER, FUNGIBLE)]),
        resolve(11, SENDER, "tokenCancelAirdrop", [pending_id(SENDER, RECEIVER, NFT, 2)]),
        schedule_create(12, SENDER, SCHEDULE, (b"\x01\x02", b"\x03\x04")),
        schedule_change(13, 1003, "scheduleSign", SCHEDULE, (b"\x05\x06",)),
        executed(14, SENDER, SCHEDULE),
        schedule_create(
            15,
            OTHER_SENDER,
            DELETED_SCHEDULE,
            (b"\x07",),
            schedule_payer=1003,
            memo="later",
            expires_ns=at(100),
            wait_for_expiry=True,
            admin_key=ED_KEY,
        ),
        schedule_change(16, OTHER_SENDER, "scheduleDelete", DELETED_SCHEDULE),
    ]
    return [make_block(1, first), make_block(2, second)]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
