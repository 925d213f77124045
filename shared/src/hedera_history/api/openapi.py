"""The OpenAPI 3.0 document of every route and JSON-RPC method (the mirror-node routes in short: the
reference's own OpenAPI is their contract, docs/api.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hedera_history import __version__
from hedera_history.formats.parsed_files import SidecarType

_REST_ERROR: dict[str, Any] = {
    "description": "Error (mirror node shape)",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}


def _param(name: str, where: str, description: str, *, required: bool = False, array: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if array:
        schema = {"type": "array", "items": schema}
    return {
        "name": name,
        "in": where,
        "required": required or where == "path",
        "description": description,
        "schema": schema,
    }


def _ref(schema: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{schema}"}


def _errors(*statuses: str) -> dict[str, Any]:
    return dict.fromkeys(statuses, _REST_ERROR)


def _get(summary: str, params: list[dict[str, Any]], schema: str) -> dict[str, Any]:
    ok = {"description": "OK", "content": {"application/json": {"schema": _ref(schema)}}}
    return {
        "get": {
            "summary": summary,
            "parameters": params,
            "responses": {"200": ok, **_errors("400", "404", "501", "503")},
        }
    }


_UNSIGNED: dict[str, Any] = {
    "type": "boolean",
    "enum": [True],
    "description": "Present (true) only for a block stored unsigned and its transactions: a pre-TSS "
    "placeholder proof, nothing signs it (HEDERA_HISTORY_UNSIGNED_BLOCKS); no proof of it is given",
}
ERRATA_KINDS = ["INSERT", "UPDATE", "DELETE"]
CALL_OPERATION_TYPES = ["CALL", "CALLCODE", "CREATE", "CREATE2", "DELEGATECALL", "STATICCALL", "UNKNOWN"]


_LOG_PARAMS = [
    _param("index", "query", "eq:, gt:, gte:, lt:, lte: the log's index in its result, beside a timestamp", array=True),
    _param("limit", "query", "Page size, 1-100 (default 25)"),
    _param("order", "query", "asc or desc (default)"),
    _param("timestamp", "query", "eq:, gt:, gte:, lt:, lte: 'seconds.nanos'", array=True),
    _param("transaction.hash", "query", "The logs of one transaction, by its 32- or 48-byte hash"),
    *(
        _param(
            f"topic{n}", "query", "Hex topic (any of the values); needs a timestamp range of at most 7 days", array=True
        )
        for n in range(4)
    ),
]


def _object(properties: Mapping[str, str | tuple[str, list[str]]], **schemas: dict[str, Any]) -> dict[str, Any]:
    """An object schema; a property is a type name, or (type name, allowed values); ``schemas``:
    properties given as whole schemas."""
    shaped: dict[str, Any] = {}
    for name, spec in properties.items():
        kind, allowed = (spec, None) if isinstance(spec, str) else spec
        shaped[name] = {"type": kind} if allowed is None else {"type": kind, "enum": allowed}
    return {"type": "object", "properties": shaped | schemas}


def _page(field: str, items: dict[str, Any], *, links: bool = True, **schemas: dict[str, Any]) -> dict[str, Any]:
    """An answer holding a list of ``items`` under ``field`` (with ``links.next`` when ``links``),
    beside the properties ``schemas``."""
    properties: dict[str, Any] = {**schemas, field: {"type": "array", "items": items}}
    if links:
        properties["links"] = {"type": "object"}
    return {"type": "object", "properties": properties}


RPC_METHODS: dict[str, str] = {
    "getFirstAvailableBlock": "params [] -> lowest complete block number or null",
    "getLatestBlock": "params [] -> highest complete block number or null",
    "getBlock": "params [number] -> block with its transactions, or null",
    "getBlocks": "params [start, end?] -> complete block numbers, ascending; a range spans at most 10000; "
    "without end: up to the latest complete block",
    "getBlockTime": "params [number] -> consensus time 'seconds.nanos' of the block's first item, or null",
    "getTransaction": "params [hash hex (96 digits) | transaction id '0.0.1001-1657701968-041986003'] -> "
    "transaction or null (for an id: the user transaction); errata: INSERT/UPDATE when an errata corrected it",
    "getTransactionStatuses": "params [[hash hex, ...]] (at most 1000) -> per hash "
    "{transaction_hash, consensus_timestamp, block_number, result, errata} or null",
    "getTransactionsForAccount": "params [account, {before, until, limit}] -> {transactions newest first, "
    "next_before}; before/until are consensus timestamps (ns integer or 'seconds.nanos'), exclusive; "
    "limit 1-1000 (default 100)",
    "getTransactionOriginal": "params [timestamp 'seconds.nanos' or ns] -> the errata record of that consensus "
    "time (as GET /api/v1/errata/{timestamp}): the original entry the stream had and the errata applied, or null",
    "getBalance": "params [account, {timestamp}?] -> {context: {timestamp, block, changed_at}, value: tinybar or "
    "null}: the derived hbar balance now (as far as balances are applied) or at or before timestamp",
    "getTransactionProof": "params [transaction id, {nonce, scheduled, sidecars}?] -> {proof_base64: the canonical "
    "ProofBundle bytes (docs/proofs.md)} or null when no complete block holds it",
    "getBlockProof": "params [number] -> {proof_base64: the canonical ProofBundle of every item of the block} or null",
}


def _proof(summary: str, params: list[dict[str, Any]]) -> dict[str, Any]:
    """A proof route: the bundle's JSON rendering, or its canonical bytes (Accept or ?format)."""
    formats = _param("format", "query", "json (default) or protobuf; else Accept: application/x-protobuf decides")
    return {
        "get": {
            "summary": summary,
            "description": "Verify offline with `hedera-history proof verify FILE --trust BOOK|HASH` or "
            "`hedera_history.proofs.verify.verify_proof` (docs/proofs.md). Not a route of the reference mirror node "
            "today (its State Proof Alpha was removed).",
            "parameters": [*params, formats],
            "responses": {
                "200": {
                    "description": "The proof bundle",
                    "content": {
                        "application/json": {"schema": _ref("ProofBundle")},
                        "application/x-protobuf": {"schema": {"type": "string", "format": "binary"}},
                    },
                },
                **_errors("400", "404", "500", "501", "503"),
            },
        }
    }


def openapi_document() -> dict[str, Any]:
    limit = _param("limit", "query", "Page size, 1-100 (default 25)")
    timestamp_param = _param("timestamp", "path", "Consensus timestamp of the transaction, 'seconds.nanos'")
    obj = {"type": "object"}
    paths: dict[str, Any] = {
        "/": {
            "post": {
                "summary": "JSON-RPC 2.0 (single or batch of at most 100; body at most 1 MiB)",
                "description": "Methods:\n" + "\n".join(f"- `{k}`: {v}" for k, v in RPC_METHODS.items()),
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("RpcRequest")}},
                },
                "responses": {
                    "200": {"description": "JSON-RPC response(s); errors -32700, -32600, -32601, -32602, -32000"},
                    "204": {"description": "Only notifications were sent"},
                    "413": {"description": "Body too large"},
                },
            }
        },
        "/api/v1/blocks": _get(
            "Complete blocks, newest first by default (the reference mirror node's listing)",
            [
                limit,
                _param("order", "query", "desc (default) or asc"),
                _param("block.number", "query", "eq:, gt:, gte:, lt:, lte: a block number", array=True),
                _param("timestamp", "query", "eq:, gt:, gte:, lt:, lte: on the block's consensus end", array=True),
            ],
            "Blocks",
        ),
        "/api/v1/blocks/{hashOrNumber}": _get(
            "One complete block by number or by hash (96 hex digits or the first 64, optional 0x)",
            [_param("hashOrNumber", "path", "Block number")],
            "Block",
        ),
        "/api/v1/transactions": _get(
            "Transactions newest first with the reference's filters; links.next pages by timestamp",
            [
                limit,
                _param("order", "query", "desc (default) or asc"),
                _param("timestamp", "query", "eq:, gt:, gte:, lt:, lte: 'seconds.nanos'", array=True),
                _param("account.id", "query", "One account (bare or eq:): the transactions touching it"),
                _param("transactiontype", "query", "A TransactionTypes name of the reference, e.g. CRYPTOTRANSFER"),
                _param("result", "query", "success or fail"),
                _param("type", "query", "credit or debit (an hbar transfer into or out of account.id)"),
            ],
            "Transactions",
        ),
        "/api/v1/accounts/{idOrAliasOrEvmAddress}": _get(
            "An account: its key, memo and aliases from its creation and updates in history, its derived "
            "balance and transactions newest first (state history does not carry is null)",
            [
                _param("idOrAliasOrEvmAddress", "path", "shard.realm.num, num, EVM address or base32 alias"),
                limit,
                _param("order", "query", "desc only"),
                _param("timestamp", "query", "eq:, gt:, gte:, lt:, lte: 'seconds.nanos'", array=True),
                _param("transactiontype", "query", "A TransactionTypes name"),
                _param("transactions", "query", "false: leave the transactions out"),
            ],
            "Account",
        ),
        "/api/v1/contracts/results/{transactionIdOrHash}": _get(
            "The contract result of a transaction, with logs and state changes",
            [
                _param("transactionIdOrHash", "path", "Transaction id, 32-byte hash prefix or 48-byte hash (hex)"),
                _param("nonce", "query", "The child with this nonce (default 0)"),
                _param("hbar", "query", "false: amount in weibars"),
            ],
            "ContractResult",
        ),
        "/api/v1/contracts/results": _get(
            "Every contract result, newest first by default",
            [
                limit,
                _param("order", "query", "asc or desc (default)"),
                _param("timestamp", "query", "eq:, gt:, gte:, lt:, lte: 'seconds.nanos'", array=True),
                _param("internal", "query", "true: child results too"),
                _param("block.number", "query", "The results of one block (eq)"),
                _param("block.hash", "query", "The results of one block, by its 32- or 48-byte hash"),
            ],
            "ContractResults",
        ),
        "/api/v1/contracts/results/logs": _get(
            "Every contract's logs, by consensus time then index, newest first by default",
            _LOG_PARAMS,
            "ContractLogs",
        ),
        "/api/v1/contracts/{contractIdOrAddress}/results/logs": _get(
            "The logs a contract emitted, by consensus time then index, newest first by default",
            [_param("contractIdOrAddress", "path", "shard.realm.num, num or EVM address"), *_LOG_PARAMS],
            "ContractLogs",
        ),
        "/api/v1/contracts/{contractIdOrAddress}": _get(
            "A contract: admin key, memo, EVM address, creation and bytecode from its history",
            [
                _param("contractIdOrAddress", "path", "shard.realm.num, num or EVM address"),
                _param("timestamp", "query", "As of: eq:, lt:, lte: 'seconds.nanos'", array=True),
            ],
            "Contract",
        ),
        "/api/v1/contracts/{contractIdOrAddress}/results": _get(
            "Results of calls to a contract, newest first",
            [
                _param("contractIdOrAddress", "path", "shard.realm.num, num or EVM address"),
                limit,
                _param("order", "query", "desc only"),
                _param("timestamp", "query", "eq:, gt:, gte:, lt:, lte: 'seconds.nanos'", array=True),
                _param("internal", "query", "true: child results too"),
            ],
            "ContractResults",
        ),
        "/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}": _get(
            "The result of the contract's call at a consensus time",
            [
                _param("contractIdOrAddress", "path", "shard.realm.num, num or EVM address"),
                _param("timestamp", "path", "Consensus time 'seconds.nanos'"),
            ],
            "ContractResult",
        ),
        "/api/v1/contracts/call": {
            "post": {
                "summary": "EVM call simulation: not executed here (no EVM state is kept), answered as the "
                "reference answers a call it cannot execute",
                "requestBody": {"required": True, "content": {"application/json": {"schema": obj}}},
                "responses": _errors("400", "501"),
            }
        },
        "/api/v1/network/nodes": _get(
            "The nodes of the newest address book in force, from the address-book history",
            [
                _param("limit", "query", "1-100, at most 25 nodes a page"),
                _param("order", "query", "asc (default) or desc, by node id"),
                _param("node.id", "query", "eq:, gt:, gte:, lt:, lte: a node id", array=True),
                _param("file.id", "query", "0.0.102 (0.0.101 lists nothing)"),
            ],
            "NetworkNodes",
        ),
        "/api/v1/transactions/{transactionIdOrHash}": _get(
            "Every result of a transaction id (children, scheduled, duplicates), or a transaction by hash",
            [
                _param("transactionIdOrHash", "path", "0.0.1001-1657701968-041986003 or 96 hex digits"),
                _param("nonce", "query", "Only the result with this nonce"),
                _param("scheduled", "query", "true or false"),
            ],
            "Transactions",
        ),
        "/api/v1/transactions/{transactionId}/stateproof": _proof(
            "Proof of one transaction: its bytes as signed, the hash path, the signatures and the book chain",
            [
                _param("transactionId", "path", "0.0.1001-1657701968-041986003 or 0.0.1001@1657701968.041986003"),
                _param("nonce", "query", "The result with this nonce (default 0)"),
                _param("scheduled", "query", "true: the scheduled execution (default false)"),
                _param("sidecars", "query", "true: also prove its sidecar records (ships the whole record file)"),
            ],
        ),
        "/api/v1/blocks/{number}/proof": _proof(
            "Proof of every item of one complete block (cached for a year)",
            [_param("number", "path", "Block number")],
        ),
        "/api/v1/accounts/{id}/transactions": _get(
            "Transactions touching an account, newest first; links.next pages by consensus timestamp",
            [
                _param("id", "path", "Account id shard.realm.num or num"),
                limit,
                _param("order", "query", "desc only"),
                _param("timestamp", "query", "lt:, lte:, gt:, gte: 'seconds.nanos'", array=True),
            ],
            "Transactions",
        ),
        "/api/v1/contracts/results/{timestamp}/actions": _get(
            "EVM actions (calls and creates) of a contract transaction, from its sidecar records, in call order",
            [
                _param("timestamp", "path", "Consensus time 'seconds.nanos', transaction id or hash"),
                _param("index", "query", "eq:, gt:, gte:, lt:, lte: an action index", array=True),
                limit,
                _param("order", "query", "asc (default) or desc, by index"),
            ],
            "ContractActions",
        ),
        "/api/v1/contracts/results/{timestamp}/state": _get(
            "Storage slots a contract transaction read or wrote, from its sidecar records",
            [timestamp_param],
            "ContractStateChanges",
        ),
        "/api/v1/contracts/results/{timestamp}/sidecars": _get(
            "Every sidecar record of a transaction as stored, types this HAPI version does not know included",
            [timestamp_param],
            "SidecarRecords",
        ),
        "/api/v1/balances": _get(
            "Derived hbar balances, now or at a consensus time: one account, or every account in key order",
            [
                _param("account.id", "query", "One account (bare or eq:), or where the listing starts (gt:, gte:)"),
                _param("account.balance", "query", "eq:, gt:, gte:, lt:, lte: tinybar (listing)", array=True),
                _param("timestamp", "query", "At or before this time: 'seconds.nanos', eq:, lte: or lt:", array=True),
                limit,
                _param("order", "query", "asc only"),
            ],
            "Balances",
        ),
        "/api/v1/errata/{timestamp}": _get(
            "HIP-639 errata of one consensus time: the original entry the stream had and the errata applied to it",
            [_param("timestamp", "path", "Consensus time of error, 'seconds.nanos'")],
            "Errata",
        ),
        "/api/v1/status": _get(
            "Where the deployment stands: the follower's source, last period, lag and last update, "
            "or status 'not following'",
            [],
            "Status",
        ),
        "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI"}}}},
    }
    schemas: dict[str, Any] = {
        "Error": {
            "type": "object",
            "properties": {"_status": {"type": "object", "properties": {"messages": {"type": "array"}}}},
        },
        "RpcRequest": {
            "type": "object",
            "required": ["jsonrpc", "method"],
            "properties": {
                "jsonrpc": {"type": "string", "enum": ["2.0"]},
                "id": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "method": {"type": "string", "enum": list(RPC_METHODS)},
                "params": {"oneOf": [{"type": "array"}, obj]},
            },
        },
        "Block": _object(
            {
                "count": "integer",
                "hapi_version": "string",
                "hash": "string",
                "name": "string",
                "number": "integer",
                "previous_hash": "string",
                "timestamp": "object",
                "record_file_version": "integer",
                "end_running_hash": "string",
                "signatures": "integer",
            },
            unsigned=_UNSIGNED,
        ),
        "Blocks": _page("blocks", _ref("Block")),
        "Transaction": _object(
            {
                "consensus_timestamp": "string",
                "transaction_id": "string",
                "transaction_hash": "string",
                "result": "string",
                "name": "string",
                "charged_tx_fee": "integer",
                "nonce": "integer",
                "scheduled": "boolean",
                "transfers": "array",
                "token_transfers": "array",
                "nft_transfers": "array",
                "block_number": "integer",
            },
            errata={
                "type": "string",
                "enum": ERRATA_KINDS,
                "nullable": True,
                "description": "Set when a HIP-639 errata corrected this entry (null: as the stream delivered it)",
            },
            unsigned=_UNSIGNED,
        ),
        "Transactions": _page("transactions", _ref("Transaction")),
        "Balances": _page(
            "balances",
            _object({"account": "string", "balance": "integer"}),
            timestamp={"type": "string", "nullable": True},
        ),
        "Status": {
            "type": "object",
            "properties": {
                "follower": {
                    "type": "object",
                    "required": ["status"],
                    "properties": {
                        "status": {"type": "string", "enum": ["following", "not following"]},
                        "source": {"type": "string", "description": "The bucket followed"},
                        "period": {"type": "string", "description": "Last period handed off and ended"},
                        "consensus_timestamp": {"type": "string", "description": "Its consensus time"},
                        "lag_seconds": {"type": "number", "description": "Now minus that consensus time"},
                        "last_update": {"type": "string", "description": "When the follower wrote its position"},
                        "last_update_seconds_ago": {"type": "number"},
                    },
                }
            },
        },
        "Errata": {
            "type": "object",
            "properties": {
                "consensus_timestamp": {"type": "string"},
                "block_number": {"type": "integer", "nullable": True},
                "index": {"type": "integer", "nullable": True},
                "errata": {"type": "string", "enum": ERRATA_KINDS, "nullable": True},
                "original": {
                    "allOf": [_ref("Transaction")],
                    "nullable": True,
                    "description": "The entry as the stream had it; null when the errata inserted it",
                },
                "errata_applied": {
                    "type": "array",
                    "description": "Every errata accepted for this time, oldest first; the last is in force",
                    "items": _object(
                        {
                            "errata_id": "string",
                            "consensus_timestamp": "string",
                            "in_force": "boolean",
                            "file_base64": "string",
                        }
                    ),
                },
            },
        },
        "ContractAction": _object(
            {
                "call_depth": "integer",
                "call_operation_type": ("string", CALL_OPERATION_TYPES),
                "call_type": ("string", ["NO_ACTION", "CALL", "CREATE", "PRECOMPILE", "SYSTEM", "UNKNOWN"]),
                "caller": "string",
                "caller_type": ("string", ["ACCOUNT", "CONTRACT"]),
                "from": "string",
                "gas": "integer",
                "gas_used": "integer",
                "index": "integer",
                "input": "string",
                "recipient": "string",
                "recipient_type": ("string", ["ACCOUNT", "CONTRACT"]),
                "result_data": "string",
                "result_data_type": ("string", ["OUTPUT", "REVERT_REASON", "ERROR"]),
                "timestamp": "string",
                "to": "string",
                "value": "integer",
            }
        ),
        "ContractActions": _page("actions", _ref("ContractAction")),
        "ContractStateChange": _object(
            {k: "string" for k in ("address", "contract_id", "slot", "value_read", "value_written")}
        ),
        "ContractStateChanges": _page("state_changes", _ref("ContractStateChange"), links=False),
        "SidecarRecord": _object(
            {
                "field": "integer",
                "index": "integer",
                "migration": "boolean",
                "raw": "string",
                "sidecar_id": "integer",
                "timestamp": "string",
                "type": ("string", [t.name for t in SidecarType]),
            }
        ),
        "ProofBundle": {
            "type": "object",
            "description": "proto/hedera_history/proof.proto ProofBundle in protobuf's JSON mapping (bytes base64, "
            "64-bit integers as strings)",
            "properties": {"format_version": {"type": "integer"}, "subject": obj, "block": obj, "trust": obj},
        },
        "Account": {"type": "object", "description": "As the reference mirror node's AccountBalanceTransactions"},
        "ContractResult": {"type": "object", "description": "As the reference mirror node's ContractResultDetails"},
        "Contract": {"type": "object", "description": "As the reference mirror node's ContractResponse"},
        "ContractResults": _page("results", obj),
        "ContractLogs": _page("logs", obj),
        "NetworkNodes": _page("nodes", obj),
        "SidecarRecords": _page("sidecars", _ref("SidecarRecord"), links=False),
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "hedera-history query API",
            "version": __version__,
            "description": "Routes under /api/v1 that the Hedera mirror node also has answer as its own OpenAPI "
            "declares (docs/api.md lists the differences); other mirror-node routes answer 501.",
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }
