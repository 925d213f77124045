"""Three blocks of hand-built token transactions with the records consensus gives them: a fungible
token and an NFT collection created, associated, granted KYC, minted, transferred (one to an
account associated automatically), burnt, updated and paused, and allowances granted and spent.
What the token, NFT and allowance routes are tested on, in memory and on the emulator alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hedera_history import hapi
from hedera_history.block import VerifiedBlock

from tests.unit.store.builders import BASE_NS, NS, Tx, account, body, make_block, record_for, signed_transaction_bytes

TREASURY, ALICE, BOB, PAYER = 3001, 3002, 3003, 1001
GOLD, ART = 5001, 5002
"""A fungible token (2 decimals) and an NFT collection."""
START = BASE_NS + 1000 * NS
BLOCK_1, BLOCK_2 = START + 100 * NS, START + 200 * NS
ADMIN = bytes(range(32))


def token(num: int) -> Any:
    return hapi.basic_types.TokenID(shardNum=0, realmNum=0, tokenNum=num)


def key() -> Any:
    return hapi.basic_types.Key(ed25519=ADMIN)


@dataclass(frozen=True)
class TokenWorld:
    blocks: tuple[VerifiedBlock, ...]
    times: dict[str, int]
    """Step name -> its consensus time."""


def _tx(consensus_ns: int, payer: int, fill: Callable[[Any], None], configure: Callable[[Any], None]) -> Tx:
    b = body(payer, consensus_ns - 5 * NS)
    fill(b)
    tx_bytes = signed_transaction_bytes(b)
    record = record_for(b, consensus_ns, tx_bytes, configure=configure)
    return Tx(consensus_ns, tx_bytes, bytes(record.SerializeToString()))


def _fungible(lists: Any, token_num: int, *amounts: tuple[int, int, bool]) -> None:
    listed = lists.add()
    listed.token.CopyFrom(token(token_num))
    for num, amount, approved in amounts:
        listed.transfers.add(accountID=account(num), amount=amount, is_approval=approved)


def _nft(record: Any, sender: int | None, receiver: int | None, *serials: int) -> None:
    listed = record.tokenTransferLists.add()
    listed.token.CopyFrom(token(ART))
    for serial in serials:
        moved = listed.nftTransfers.add(serialNumber=serial)
        if sender is not None:
            moved.senderAccountID.CopyFrom(account(sender))
        if receiver is not None:
            moved.receiverAccountID.CopyFrom(account(receiver))


def _create_gold(b: Any) -> None:
    data = b.tokenCreation
    data.name, data.symbol, data.decimals, data.initialSupply = "Gold", "GLD", 2, 1000
    data.treasury.CopyFrom(account(TREASURY))
    for field in ("adminKey", "kycKey", "freezeKey", "supplyKey", "pause_key"):
        getattr(data, field).CopyFrom(key())
    data.memo = "gold memo"
    fee = data.custom_fees.add()
    fee.fixed_fee.amount = 5
    fee.fee_collector_account_id.CopyFrom(account(TREASURY))


def _created(num: int, *initial: tuple[int, int, bool]) -> Callable[[Any], None]:
    def configure(record: Any) -> None:
        record.receipt.tokenID.CopyFrom(token(num))
        if initial:
            _fungible(record.tokenTransferLists, num, *initial)

    return configure


def _create_art(b: Any) -> None:
    data = b.tokenCreation
    data.name, data.symbol, data.tokenType = "Art", "ART", 1
    data.treasury.CopyFrom(account(TREASURY))
    data.supplyKey.CopyFrom(key())
    data.supplyType, data.maxSupply = 1, 10


def token_world() -> TokenWorld:
    t = {name: START + i for i, name in enumerate(("create_gold", "associate", "kyc", "pay_alice", "create_art"))}
    t |= {name: BLOCK_1 + i for i, name in enumerate(("mint_art", "mint_gold", "art_to_bob", "approve"))}
    t |= {name: BLOCK_2 + i for i, name in enumerate(("spend", "burn_art", "update_gold", "pause_gold", "refused"))}

    def associate(b: Any) -> None:
        b.tokenAssociate.account.CopyFrom(account(ALICE))
        b.tokenAssociate.tokens.add().CopyFrom(token(GOLD))

    def kyc(b: Any) -> None:
        b.tokenGrantKyc.account.CopyFrom(account(ALICE))
        b.tokenGrantKyc.token.CopyFrom(token(GOLD))

    def mint_art(b: Any) -> None:
        b.tokenMint.token.CopyFrom(token(ART))
        b.tokenMint.metadata.extend([b"one", b"two", b"three"])

    def minted_art(r: Any) -> None:
        r.receipt.serialNumbers.extend([1, 2, 3])
        r.receipt.newTotalSupply = 3
        _nft(r, None, TREASURY, 1, 2, 3)

    def mint_gold(b: Any) -> None:
        b.tokenMint.token.CopyFrom(token(GOLD))
        b.tokenMint.amount = 500

    def minted_gold(r: Any) -> None:
        r.receipt.newTotalSupply = 1500
        _fungible(r.tokenTransferLists, GOLD, (TREASURY, 500, False))

    def art_to_bob(r: Any) -> None:
        _nft(r, TREASURY, BOB, 2)
        r.automatic_token_associations.add(token_id=token(ART), account_id=account(BOB))

    def approve(b: Any) -> None:
        data = b.cryptoApproveAllowance
        data.cryptoAllowances.add(spender=account(BOB), amount=100)  # no owner: the payer's
        data.tokenAllowances.add(tokenId=token(GOLD), owner=account(ALICE), spender=account(BOB), amount=50)
        nft = data.nftAllowances.add(tokenId=token(ART), owner=account(TREASURY), spender=account(BOB))
        nft.approved_for_all.value = True
        data.nftAllowances.add(tokenId=token(ART), owner=account(TREASURY), spender=account(ALICE), serial_numbers=[1])

    def spend(b: Any) -> None:  # the body says which transfers are approved, the record does not
        b.cryptoTransfer.transfers.accountAmounts.add(accountID=account(ALICE), amount=-30, is_approval=True)
        b.cryptoTransfer.transfers.accountAmounts.add(accountID=account(BOB), amount=30)
        _fungible(b.cryptoTransfer.tokenTransfers, GOLD, (ALICE, -20, True), (BOB, 20, False))

    def spent(r: Any) -> None:
        r.transferList.accountAmounts.add(accountID=account(ALICE), amount=-30)
        r.transferList.accountAmounts.add(accountID=account(BOB), amount=30)
        _fungible(r.tokenTransferLists, GOLD, (ALICE, -20, False), (BOB, 20, False))
        r.automatic_token_associations.add(token_id=token(GOLD), account_id=account(BOB))

    def burn_art(b: Any) -> None:
        b.tokenBurn.token.CopyFrom(token(ART))
        b.tokenBurn.serialNumbers.append(3)

    def burnt_art(r: Any) -> None:
        r.receipt.newTotalSupply = 2
        _nft(r, TREASURY, None, 3)

    def update_gold(b: Any) -> None:
        b.tokenUpdate.token.CopyFrom(token(GOLD))
        b.tokenUpdate.name = "Gold 2"
        b.tokenUpdate.memo.value = "new memo"

    def refused(b: Any) -> None:
        b.tokenDissociate.account.CopyFrom(account(ALICE))
        b.tokenDissociate.tokens.add().CopyFrom(token(GOLD))

    def refused_record(r: Any) -> None:
        r.receipt.status = 7  # INVALID_SIGNATURE: changes nothing

    def none(_: Any) -> None:
        return None

    def transfer(b: Any) -> None:
        b.cryptoTransfer.SetInParent()  # what it moves is in the record

    blocks = (
        make_block(
            0,
            [
                _tx(t["create_gold"], PAYER, _create_gold, _created(GOLD, (TREASURY, 1000, False))),
                _tx(t["associate"], ALICE, associate, none),
                _tx(t["kyc"], PAYER, kyc, none),
                _tx(
                    t["pay_alice"],
                    TREASURY,
                    transfer,
                    lambda r: _fungible(r.tokenTransferLists, GOLD, (TREASURY, -300, False), (ALICE, 300, False)),
                ),
                _tx(t["create_art"], PAYER, _create_art, _created(ART)),
            ],
        ),
        make_block(
            1,
            [
                _tx(t["mint_art"], PAYER, mint_art, minted_art),
                _tx(t["mint_gold"], PAYER, mint_gold, minted_gold),
                _tx(t["art_to_bob"], TREASURY, transfer, art_to_bob),
                _tx(t["approve"], ALICE, approve, none),
            ],
        ),
        make_block(
            2,
            [
                _tx(t["spend"], BOB, spend, spent),
                _tx(t["burn_art"], PAYER, burn_art, burnt_art),
                _tx(t["update_gold"], PAYER, update_gold, none),
                _tx(t["pause_gold"], PAYER, lambda b: b.token_pause.token.CopyFrom(token(GOLD)), none),
                _tx(t["refused"], ALICE, refused, refused_record),
            ],
        ),
    )
    return TokenWorld(blocks, t)
