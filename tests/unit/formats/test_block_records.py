"""Block transactions become records as the reference mirror node's transformers build them, kind by kind."""

from __future__ import annotations

import hashlib
from typing import Any

from hedera_history import hapi
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_record_file import block_record_file, block_sidecar_files
from hedera_history.formats.block_records import records_from_items
from hedera_history.formats.block_state import (
    STATE_ID_ACCOUNTS,
    STATE_ID_BYTECODE,
    STATE_ID_FILES,
    STATE_ID_NODES,
    STATE_ID_PENDING_AIRDROPS,
    STATE_ID_STORAGE,
    STATE_ID_TOKENS,
    STATE_ID_TOPICS,
)
from hedera_history.formats.evm import keccak256, log_bloom, long_zero_address
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store.accounts import decode_transaction_body

from tests.unit.formats.block_builders import (
    BASE_NS,
    SUCCESS,
    account,
    body,
    contract,
    map_update,
    output_item,
    result_item,
    signed_bytes,
    signed_item,
    state_item,
    timestamp,
    trace_item,
)

FAILED = hapi.ResponseCodeEnum.Value("INVALID_SIGNATURE")
REVERTED = hapi.ResponseCodeEnum.Value("CONTRACT_REVERT_EXECUTED")


def records(items: list[BlockItem]) -> list[Any]:
    return [hapi.TransactionRecord.FromString(item.record_bytes) for item in records_from_items(items).items]


def one_record(items: list[BlockItem]) -> Any:
    (record,) = records(items)
    return record


def account_state(num: int, **fields: Any) -> Any:
    """The account state change of account ``num`` with ``fields`` (alias, smart_contract, ...)."""
    return map_update(STATE_ID_ACCOUNTS, value={"account_value": {"account_id": {"accountNum": num}, **fields}})


# ---- fields every transaction has ------------------------------------------------------------------


def test_the_common_fields_come_from_the_body_and_the_result() -> None:
    transaction_body = body(payer=1001, memo="hello", cryptoTransfer={})
    token_transfers = [{"token": {"tokenNum": 5000}, "transfers": [{"accountID": {"accountNum": 1001}, "amount": -3}]}]
    items = [
        signed_item(transaction_body),
        result_item(
            BASE_NS,
            transfers=((1001, -25), (3, 5), (98, 20)),
            token_transfer_lists=token_transfers,
            paid_staking_rewards=[{"accountID": {"accountNum": 1001}, "amount": 7}],
            schedule_ref={"scheduleNum": 4000},
        ),
    ]
    (item,) = records_from_items(items).items
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    assert item.consensus_ns == BASE_NS
    assert record.consensusTimestamp == timestamp(BASE_NS)
    assert record.transactionID == transaction_body.transactionID
    assert record.memo == "hello"
    assert record.receipt.status == SUCCESS
    assert record.transactionFee == 10
    assert [(a.accountID.accountNum, a.amount) for a in record.transferList.accountAmounts] == [
        (1001, -25),
        (3, 5),
        (98, 20),
    ]
    assert record.tokenTransferLists[0].token.tokenNum == 5000
    assert record.paid_staking_rewards[0].amount == 7
    assert record.scheduleRef.scheduleNum == 4000
    assert not record.HasField("parent_consensus_timestamp")
    assert decode_transaction_body(item.transaction_bytes) == transaction_body


def test_the_hash_is_sha384_of_the_signed_transaction_bytes() -> None:
    transaction_body = body(cryptoTransfer={})
    (item,) = records_from_items([signed_item(transaction_body), result_item(BASE_NS)]).items
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    assert record.transactionHash == hashlib.sha384(signed_bytes(transaction_body)).digest()
    assert hapi.Transaction.FromString(item.transaction_bytes).signedTransactionBytes == signed_bytes(transaction_body)


def test_a_transaction_received_in_the_old_form_is_its_body_and_signatures_and_hashes_as_such() -> None:
    transaction_body = body(cryptoTransfer={})
    (item,) = records_from_items([signed_item(transaction_body, legacy=True), result_item(BASE_NS)]).items
    transaction = hapi.Transaction.FromString(item.transaction_bytes)
    assert transaction.bodyBytes == transaction_body.SerializeToString()
    assert len(transaction.sigMap.sigPair) == 1 and not transaction.signedTransactionBytes
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    assert record.transactionHash == hashlib.sha384(item.transaction_bytes).digest()


def test_a_child_carries_its_parent_consensus_time_and_fails_with_its_parent() -> None:
    created = {"account_create": {"created_account_id": {"accountNum": 2002}}}
    items = [
        signed_item(body(contractCall={})),
        result_item(BASE_NS, REVERTED),
        signed_item(body(cryptoCreateAccount={})),
        result_item(BASE_NS + 1, parent_ns=BASE_NS),
        output_item(**created),
    ]
    parent, child = records(items)
    assert child.parent_consensus_timestamp == parent.consensusTimestamp
    assert not child.receipt.HasField("accountID")  # its status says SUCCESS, but it was reverted


def test_fields_newer_than_the_protobufs_do_not_break_it() -> None:
    result = result_item(BASE_NS).transaction_result.SerializeToString() + bytes([0xA0, 0x06, 0x01])  # field 100
    item = BlockItem.FromString(bytes([0x2A, len(result)]) + result)
    assert one_record([signed_item(body(cryptoTransfer={})), item]).receipt.status == SUCCESS


# ---- kinds the generator plays --------------------------------------------------------------------


def test_an_account_create_names_the_account_its_output_gives_and_its_evm_alias() -> None:
    alias = bytes(range(20))
    items = [
        signed_item(body(cryptoCreateAccount={"alias": alias})),
        result_item(BASE_NS),
        output_item(account_create={"created_account_id": {"accountNum": 2002}}),
    ]
    record = one_record(items)
    assert record.receipt.accountID == account(2002)
    assert record.evm_address == alias
    failed = [signed_item(body(cryptoCreateAccount={})), result_item(BASE_NS, FAILED)]
    assert not one_record(failed).receipt.HasField("accountID")


def _evm_result(contract_num: int, **extra: Any) -> dict[str, Any]:
    return {
        "sender_id": {"accountNum": 1001},
        "contract_id": {"contractNum": contract_num},
        "result_data": b"\x01\x02",
        "gas_used": 21_000,
        "internal_call_context": {"gas": 50_000, "value": 12, "call_data": b"\xab\xcd"},
        **extra,
    }


def test_a_contract_call_gets_its_result_logs_and_sidecars() -> None:
    topic = b"\x11" * 32
    trace = {
        "evm_trace_data": {
            "logs": [{"contract_id": {"contractNum": 4001}, "data": b"\x99", "topics": [topic, b"\x05"]}],
            "contract_actions": [{"gas": 5, "call_depth": 0}],
            "contract_slot_usages": [
                {
                    "contract_id": {"contractNum": 4001},
                    "written_slot_keys": {"keys": [b"\x00\x07"]},
                    "slot_reads": [{"index": 0, "read_value": b"\x00\x01"}, {"key": b"\x08", "read_value": b"\x03"}],
                }
            ],
        }
    }
    slot = {"contractID": {"contractNum": 4001}, "key": b"\x07"}
    items = [
        signed_item(body(contractCall={"contractID": {"contractNum": 4001}})),
        result_item(BASE_NS),
        output_item(contract_call={"evm_transaction_result": _evm_result(4001)}),
        trace_item(**trace),
        state_item(
            BASE_NS,
            map_update(
                STATE_ID_STORAGE, key={"slot_key_key": slot}, value={"slot_value_value": {"value": b"\x00\x02"}}
            ),
        ),
    ]
    block = records_from_items(items)
    record = hapi.TransactionRecord.FromString(block.items[0].record_bytes)
    result = record.contractCallResult
    assert record.receipt.contractID == contract(4001)
    assert (result.contractID, result.contractCallResult, result.gasUsed) == (contract(4001), b"\x01\x02", 21_000)
    assert (result.gas, result.amount, result.functionParameters) == (50_000, 12, b"\xab\xcd")
    assert result.sender_id == account(1001)
    (log,) = result.logInfo
    assert (log.contractID, log.data, list(log.topic)) == (contract(4001), b"\x99", [topic, b"\x05"])
    assert log.bloom == log_bloom(long_zero_address(4001), [topic, b"\x05"]) == result.bloom
    actions, changes = block.sidecar_records
    assert actions.type is SidecarType.CONTRACT_ACTION and changes.type is SidecarType.CONTRACT_STATE_CHANGE
    assert actions.consensus_ns == changes.consensus_ns == BASE_NS
    state = hapi.TransactionSidecarRecord.FromString(changes.raw).state_changes.contract_state_changes[0]
    written, read_only = state.storage_changes
    assert (written.slot, written.value_read, written.value_written.value) == (b"\x07", b"\x01", b"\x02")
    assert (read_only.slot, read_only.value_read, read_only.HasField("value_written")) == (b"\x08", b"\x03", False)


def test_a_slot_read_by_index_without_keys_is_the_contracts_nth_slot_in_the_state_changes() -> None:
    trace = {
        "evm_trace_data": {
            "contract_slot_usages": [{"contract_id": {"contractNum": 4001}, "slot_reads": [{"index": 1}]}]
        }
    }
    slots = [
        map_update(
            STATE_ID_STORAGE,
            key={"slot_key_key": {"contractID": {"contractNum": 4001}, "key": key}},
            value={"slot_value_value": {"value": value}},
        )
        for key, value in ((b"\x01", b"\x0a"), (b"\x02", b"\x0b"))
    ]
    items = [
        signed_item(body(contractCall={})),
        result_item(BASE_NS),
        output_item(contract_call={"evm_transaction_result": _evm_result(4001)}),
        trace_item(**trace),
        state_item(BASE_NS, *slots),
    ]
    (sidecar,) = records_from_items(items).sidecar_records
    change = hapi.TransactionSidecarRecord.FromString(sidecar.raw).state_changes.contract_state_changes[0]
    assert (change.storage_changes[0].slot, change.storage_changes[0].value_written.value) == (b"\x02", b"\x0b")


def test_a_contract_create_gets_its_evm_address_and_bytecode_with_the_initcode_around_it() -> None:
    runtime = b"\x60\x80"
    trace = {
        "evm_trace_data": {
            "executed_initcode": {
                "contract_id": {"contractNum": 4002},
                "initcode_bookends": {"deploy_bytecode": b"\xde", "metadata_bytecode": b"\xad"},
            }
        }
    }
    alias = b"\x42" * 20
    state = [
        account_state(4002, alias=alias, smart_contract=True),
        map_update(
            STATE_ID_BYTECODE,
            key={"contract_id_key": {"contractNum": 4002}},
            value={"bytecode_value": {"code": runtime}},
        ),
    ]
    items = [
        signed_item(body(contractCreateInstance={"gas": 100})),
        result_item(BASE_NS),
        output_item(contract_create={"evm_transaction_result": _evm_result(4002)}),
        trace_item(**trace),
        state_item(BASE_NS, *state),
    ]
    block = records_from_items(items)
    record = hapi.TransactionRecord.FromString(block.items[0].record_bytes)
    assert not record.HasField("contractCallResult")
    assert record.contractCreateResult.contractID == record.receipt.contractID == contract(4002)
    assert record.contractCreateResult.evm_address.value == alias
    (sidecar,) = block.sidecar_records
    bytecode = hapi.TransactionSidecarRecord.FromString(sidecar.raw).bytecode
    assert (bytecode.contract_id, bytecode.runtime_bytecode, bytecode.initcode) == (
        contract(4002),
        runtime,
        b"\xde" + runtime + b"\xad",
    )


def test_a_schedule_create_names_its_schedule_and_scheduled_transaction() -> None:
    scheduled = {"accountID": {"accountNum": 1001}, "scheduled": True}
    output = {"create_schedule": {"schedule_id": {"scheduleNum": 6000}, "scheduled_transaction_id": scheduled}}
    items = [signed_item(body(scheduleCreate={})), result_item(BASE_NS), output_item(**output)]
    receipt = one_record(items).receipt
    assert receipt.scheduleID.scheduleNum == 6000 and receipt.scheduledTransactionID.scheduled
    identical = hapi.ResponseCodeEnum.Value("IDENTICAL_SCHEDULE_ALREADY_CREATED")
    items = [signed_item(body(scheduleCreate={})), result_item(BASE_NS, identical), output_item(**output)]
    assert one_record(items).receipt.scheduleID.scheduleNum == 6000
    sign = {"sign_schedule": {"scheduled_transaction_id": scheduled}}
    items = [signed_item(body(scheduleSign={})), result_item(BASE_NS), output_item(**sign)]
    assert one_record(items).receipt.scheduledTransactionID.scheduled


# ---- the rest, by how common they are on mainnet ---------------------------------------------------


def _topic(num: int, sequence: int = 0, running_hash: bytes = b"") -> Any:
    value = {"topic_id": {"topicNum": num}, "sequence_number": sequence, "running_hash": running_hash}
    return map_update(STATE_ID_TOPICS, key={"topic_id_key": {"topicNum": num}}, value={"topic_value": value})


def test_a_submit_takes_its_running_hash_from_trace_data_or_else_the_topics_state() -> None:
    from_trace = [
        signed_item(body(consensusSubmitMessage={"topicID": {"topicNum": 7000}})),
        result_item(BASE_NS),
        trace_item(submit_message_trace_data={"sequence_number": 4, "running_hash": b"\x01" * 48}),
    ]
    receipt = one_record(from_trace).receipt
    assert (receipt.topicSequenceNumber, receipt.topicRunningHash, receipt.topicRunningHashVersion) == (
        4,
        b"\x01" * 48,
        3,
    )
    from_state = [
        signed_item(body(consensusSubmitMessage={"topicID": {"topicNum": 7000}})),
        result_item(BASE_NS),
        state_item(BASE_NS, _topic(7000, 9, b"\x02" * 48)),
    ]
    receipt = one_record(from_state).receipt
    assert (receipt.topicSequenceNumber, receipt.topicRunningHash) == (9, b"\x02" * 48)


def test_entities_created_under_one_parent_take_their_numbers_in_consensus_order() -> None:
    file_state = [map_update(STATE_ID_FILES, key={"file_id_key": {"fileNum": n}}) for n in (111, 112)]
    node_state = [map_update(STATE_ID_NODES, key={"entity_number_key": {"value": n}}) for n in (5, 6)]
    items = [
        signed_item(body(atomic_batch={})),
        result_item(BASE_NS),
        state_item(BASE_NS, _topic(7002), _topic(7001), *file_state, *node_state),
    ]
    children = [body(consensusCreateTopic={})] * 2 + [body(fileCreate={})] * 2 + [body(nodeCreate={})] * 2
    for offset, child in enumerate(children, 1):
        items += [signed_item(child), result_item(BASE_NS + offset, parent_ns=BASE_NS)]
    _, topic_a, topic_b, file_a, file_b, node_a, node_b = records(items)
    assert (topic_a.receipt.topicID.topicNum, topic_b.receipt.topicID.topicNum) == (7001, 7002)
    assert (file_a.receipt.fileID.fileNum, file_b.receipt.fileID.fileNum) == (111, 112)
    assert (node_a.receipt.node_id, node_b.receipt.node_id) == (5, 6)


def test_token_supplies_are_told_back_from_the_last_transaction() -> None:
    token = {"tokenNum": 8000}
    token_state = map_update(
        STATE_ID_TOKENS, key={"token_id_key": token}, value={"token_value": {"token_id": token, "total_supply": 1_010}}
    )
    nft_transfers = [{"token": token, "nftTransfers": [{"serialNumber": s} for s in (3, 1, 2)]}]
    items = [
        signed_item(body(contractCall={})),
        result_item(BASE_NS),
        state_item(BASE_NS, token_state),
        signed_item(body(tokenCreation={"initialSupply": 1_000})),
        result_item(BASE_NS + 1, parent_ns=BASE_NS),
        signed_item(body(tokenMint={"token": token, "amount": 20})),
        result_item(BASE_NS + 2, parent_ns=BASE_NS, token_transfer_lists=nft_transfers),
        signed_item(body(tokenBurn={"token": token, "amount": 10})),
        result_item(BASE_NS + 3, parent_ns=BASE_NS),
    ]
    _, create, mint, burn = records(items)
    assert (create.receipt.tokenID.tokenNum, create.receipt.newTotalSupply) == (8000, 1_000)
    assert mint.receipt.newTotalSupply == 1_020 and list(mint.receipt.serialNumbers) == [1, 2, 3]
    assert burn.receipt.newTotalSupply == 1_010


def test_an_ethereum_transaction_gets_its_keccak_hash_and_its_signers_nonce() -> None:
    data = b"\x02\xf8\x70\x01"
    state = account_state(1001, ethereum_nonce=8)
    items = [
        signed_item(body(ethereumTransaction={"ethereum_data": data})),
        result_item(BASE_NS),
        output_item(ethereum_call={"evm_call_transaction_result": _evm_result(4001)}),
        state_item(BASE_NS, state),
    ]
    record = one_record(items)
    assert record.ethereum_hash == keccak256(data)
    assert record.contractCallResult.signer_nonce.value == 8
    assert record.receipt.contractID == contract(4001)
    no_gas = [
        signed_item(body(ethereumTransaction={"ethereum_data": data, "call_data": {"fileNum": 9}})),
        result_item(BASE_NS),
        output_item(ethereum_call={"evm_create_transaction_result": _evm_result(4001, gas_used=0)}),
    ]
    record = one_record(no_gas)
    assert record.HasField("contractCreateResult") and not record.receipt.HasField("contractID")
    assert record.ethereum_hash == b""  # its call data is in a file


def test_a_contract_update_or_delete_names_its_contract_even_by_evm_address() -> None:
    by_number = [signed_item(body(contractUpdateInstance={"contractID": {"contractNum": 4001}})), result_item(BASE_NS)]
    assert one_record(by_number).receipt.contractID == contract(4001)
    long_zero = {"contractID": {"evm_address": long_zero_address(4003)}}
    items = [signed_item(body(contractDeleteInstance=long_zero)), result_item(BASE_NS)]
    assert one_record(items).receipt.contractID == contract(4003)
    alias = b"\x42" * 20
    state = account_state(4004, alias=alias, smart_contract=True)
    items = [
        signed_item(body(contractUpdateInstance={"contractID": {"evm_address": alias}})),
        result_item(BASE_NS),
        state_item(BASE_NS, state),
    ]
    assert one_record(items).receipt.contractID == contract(4004)


def test_an_account_update_by_alias_names_the_account_the_state_gives() -> None:
    alias = b"\x03" * 33
    state = account_state(2500, alias=alias)
    items = [
        signed_item(body(cryptoUpdateAccount={"accountIDToUpdate": {"alias": alias}})),
        result_item(BASE_NS),
        state_item(BASE_NS, state),
    ]
    assert one_record(items).receipt.accountID == account(2500)


def test_a_prng_gets_its_number_or_bytes() -> None:
    items = [
        signed_item(body(util_prng={"range": 10})),
        result_item(BASE_NS),
        output_item(util_prng={"prng_number": 7}),
    ]
    assert one_record(items).prng_number == 7
    items = [signed_item(body(util_prng={})), result_item(BASE_NS), output_item(util_prng={"prng_bytes": b"\x05" * 48})]
    assert one_record(items).prng_bytes == b"\x05" * 48


def test_an_airdrop_lists_as_pending_what_no_account_received() -> None:
    token, nft = {"tokenNum": 8000}, {"tokenNum": 8001}
    airdrop = {
        "token_transfers": [
            {
                "token": token,
                "transfers": [
                    {"accountID": {"accountNum": 1001}, "amount": -30},
                    {"accountID": {"accountNum": 2001}, "amount": 10},
                    {"accountID": {"accountNum": 2002}, "amount": 20},
                ],
            },
            {
                "token": nft,
                "nftTransfers": [
                    {
                        "senderAccountID": {"accountNum": 1001},
                        "receiverAccountID": {"accountNum": 2003},
                        "serialNumber": 4,
                    }
                ],
            },
        ]
    }
    received = [{"token": token, "transfers": [{"accountID": {"accountNum": 2001}, "amount": 10}]}]
    pending_id = {"sender_id": {"accountNum": 1001}, "receiver_id": {"accountNum": 2002}, "fungible_token_type": token}
    pending_state = map_update(
        STATE_ID_PENDING_AIRDROPS,
        key={"pending_airdrop_id_key": pending_id},
        value={"account_pending_airdrop_value": {"pending_airdrop_value": {"amount": 50}}},
    )
    items = [
        signed_item(body(tokenAirdrop=airdrop)),
        result_item(BASE_NS, token_transfer_lists=received),
        state_item(BASE_NS, pending_state),
    ]
    fungible, non_fungible = one_record(items).new_pending_airdrops
    assert fungible.pending_airdrop_id.receiver_id == account(2002)
    assert fungible.pending_airdrop_value.amount == 50  # what is pending in all, as the state says
    assert non_fungible.pending_airdrop_id.non_fungible_token.serial_number == 4


def test_a_slot_written_inside_a_batch_has_the_value_the_next_transaction_read() -> None:
    usage = {
        "contract_id": {"contractNum": 4001},
        "written_slot_keys": {"keys": [b"\x01"]},
        "slot_reads": [{"index": 0, "read_value": b"\x05"}],
    }
    inner = [signed_bytes(body(contractCall={})) for _ in range(2)]
    slot = {"contractID": {"contractNum": 4001}, "key": b"\x01"}
    items = [
        signed_item(body(atomic_batch={"transactions": inner})),
        result_item(BASE_NS),
        state_item(
            BASE_NS,
            map_update(STATE_ID_STORAGE, key={"slot_key_key": slot}, value={"slot_value_value": {"value": b"\x07"}}),
        ),
        result_item(BASE_NS + 1, parent_ns=BASE_NS),
        output_item(contract_call={"evm_transaction_result": _evm_result(4001)}),
        trace_item(evm_trace_data={"contract_slot_usages": [usage]}),
        result_item(BASE_NS + 2, parent_ns=BASE_NS),
        output_item(contract_call={"evm_transaction_result": _evm_result(4001)}),
        trace_item(
            evm_trace_data={"contract_slot_usages": [{**usage, "slot_reads": [{"index": 0, "read_value": b"\x06"}]}]}
        ),
    ]
    first, second = records_from_items(items).sidecar_records
    written = [
        hapi.TransactionSidecarRecord.FromString(s.raw).state_changes.contract_state_changes[0].storage_changes[0]
        for s in (first, second)
    ]
    assert written[0].value_written.value == b"\x06"  # the second read it so
    assert written[1].value_written.value == b"\x07"  # the last one: what the state changes say


def test_a_block_is_a_record_file_that_links_by_its_root_hashes() -> None:
    block = records_from_items([signed_item(body(cryptoTransfer={})), result_item(BASE_NS)])
    hashes = {"root_hash": b"\x01" * 48, "previous_root_hash": b"\x02" * 48}
    record = block_record_file("42.blk.zstd", 42, (0, 73, 1), block, timestamp_ns=BASE_NS - 9, size=9, **hashes)
    assert (record.version, record.block_number, record.hapi_version) == (7, 42, (0, 73, 1))
    assert (record.previous_hash, record.hash, record.consensus_start) == (b"\x02" * 48, b"\x01" * 48, BASE_NS)
    assert block_sidecar_files("42.blk.zstd", block) == ()
    empty = block_record_file(
        "43.blk.zstd", 43, (0, 73, 1), records_from_items([]), timestamp_ns=BASE_NS, size=9, **hashes
    )
    assert empty.consensus_start == empty.consensus_end == BASE_NS
