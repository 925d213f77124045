"""The ground-truth document: what every later test compares the pipeline's output against.

docs/generator.md describes each field. Accounts are ``shard.realm.num`` strings, hashes lowercase
hex, times integer nanoseconds since the epoch, amounts integer tinybar (or token units).
"""

from __future__ import annotations

import json
import tempfile
from array import array
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import IO, Any

from cryptography.hazmat.primitives.asymmetric import ed25519

from hedera_history.formats.hashing import hex_or_none, sha384
from hedera_history.gen.config_and_output import (
    NS_PER_SECOND,
    BookEpoch,
    GeneratedBlock,
    GeneratedPeriod,
    GeneratorConfig,
    NodeInfo,
    address_book_file,
    layout_name,
)
from hedera_history.gen.facts import GeneratedItem, ItemFacts
from hedera_history.gen.keys import ed25519_public_bytes
from hedera_history.gen.ledger import FUNGIBLE_DECIMALS, Genesis, Ledger

TRUTH_FORMAT = 1
NATIVE_BLOCK_VERSION = 7
"""The record file version a native block's record file has (the reference's for block-stream blocks)."""
COMPACT = (",", ":")
"""The separators of a compact truth file (one written for reading is indented)."""


def account(num: int) -> str:
    return f"0.0.{num}"


def transaction_id_string(payer: int, valid_start_ns: int) -> str:
    """The mirror node's form, e.g. ``0.0.1001-1657701968-041986003``."""
    seconds, nanos = divmod(valid_start_ns, NS_PER_SECOND)
    return f"{account(payer)}-{seconds}-{nanos:09d}"


def transaction_truth(
    facts: ItemFacts, block_number: int, index: int, touched: tuple[int, ...] | None = None
) -> dict[str, Any]:
    if touched is None:
        touched = facts.accounts_touched()
    truth: dict[str, Any] = {
        "consensus_ns": facts.consensus_ns,
        "hash": facts.transaction_hash.hex(),
        "transaction_id": {
            "payer": account(facts.payer),
            "valid_start_ns": facts.valid_start_ns,
            "nonce": facts.nonce,
            "scheduled": facts.scheduled,
        },
        "transaction_id_string": transaction_id_string(facts.payer, facts.valid_start_ns),
        "block_number": block_number,
        "index": index,
        "type": facts.type,
        "status": facts.status,
        "payer": account(facts.payer),
        "node": account(facts.node) if facts.node is not None else None,
        "fee": facts.fee,
        "memo": facts.memo,
        "hbar_transfers": [{"account": account(a), "amount": amount} for a, amount in facts.hbar_transfers],
        "token_transfers": [
            {"token": account(token), "account": account(a), "amount": amount}
            for token, a, amount in facts.token_transfers
        ],
        "nft_transfers": [
            {
                "token": account(token),
                "sender": account(sender),
                "receiver": account(receiver),
                "serial": serial,
            }
            for token, sender, receiver, serial in facts.nft_transfers
        ],
        "created": [account(a) for a in facts.created],
        "contract": account(facts.contract) if facts.contract is not None else None,
        "parent_consensus_ns": facts.parent_consensus_ns,
        "accounts_touched": [account(a) for a in touched],
        "sidecar_types": list(facts.sidecar_types),
    }
    if facts.topic_created is not None:  # only streams with topics (GeneratorConfig.topics) carry these
        truth["topic_created"] = account(facts.topic_created)
    message = facts.topic_message
    if message is not None:
        truth["topic_message"] = {
            "topic": account(message.topic),
            "sequence_number": message.sequence_number,
            "running_hash": message.running_hash.hex(),
            "message": message.message.hex(),
            "chunk": None if message.chunk is None else {"number": message.chunk[0], "total": message.chunk[1]},
        }
    if facts.token_created is not None:  # only streams with tokens (GeneratorConfig.tokens) carry these
        truth["token_created"] = account(facts.token_created)
    if facts.automatic_associations:
        truth["automatic_associations"] = [
            {"token": account(token), "account": account(a)} for token, a in facts.automatic_associations
        ]
    if facts.pending_airdrops:
        truth["pending_airdrops"] = [
            {"sender": account(s), "receiver": account(r), "token": account(t), "serial": serial or None, "amount": a}
            for s, r, t, serial, a in facts.pending_airdrops
        ]
    if facts.staking_rewards:
        truth["staking_rewards"] = [{"account": account(a), "amount": amount} for a, amount in facts.staking_rewards]
    if facts.logs:  # only streams with contract logs (GeneratorConfig.contract_logs) carry these
        truth["logs"] = [
            {"contract": account(log.contract), "topics": [t.hex() for t in log.topics], "data": log.data.hex()}
            for log in facts.logs
        ]
    if facts.system_file is not None:
        file, contents = facts.system_file
        truth["system_file"] = {"file": account(file), "contents": contents.hex()}
    return truth


def block_truth(period: GeneratedPeriod, hapi_version: str, book_index: int, signers: Sequence[str]) -> dict[str, Any]:
    return {
        "number": period.block_number,
        "period": period.index,
        "version": period.version,
        "name": str(period.record_name),
        "file_hash": period.file_hash.hex(),
        "metadata_hash": hex_or_none(period.metadata_hash),
        "start_running_hash": hex_or_none(period.start_running_hash),
        "end_running_hash": hex_or_none(period.end_running_hash),
        "previous_file_hash": hex_or_none(period.previous_file_hash),
        "previous_hash": period.previous_hash.hex(),
        "hash": period.hash.hex(),
        "consensus_start_ns": period.consensus_start_ns,
        "consensus_end_ns": period.consensus_end_ns,
        "item_count": period.item_count,
        # The reference reads no HAPI version from V1/V2 files.
        "hapi_version": hapi_version if period.version >= 5 else "0.0.0",
        "address_book": book_index,
        "signers": list(signers),
        "sidecars": [
            {
                "id": sidecar.name.sidecar_id,
                "name": str(sidecar.name),
                "types": list(sidecar.types),
                "hash": sha384(sidecar.data).hex(),
                "record_count": sidecar.record_count,
            }
            for sidecar in period.sidecars
        ],
    }


def block_file_truth(block: GeneratedBlock, accounts: Sequence[str]) -> dict[str, Any]:
    """What a block file adds to its period's entry (``accounts``: node accounts by node id)."""
    return {
        "kind": block.kind.value,
        "file": block.path,
        "root_hash": block.root_hash.hex(),
        "previous_root_hash": block.previous_root_hash.hex(),
        "all_block_hashes_root": block.all_block_hashes_root.hex(),
        "timestamp_ns": block.timestamp_ns,
        "items": dict(block.item_counts),
        "proof": block.proof,
        "proven_by": block.proven_by,
        "signers": [accounts[node_id] for node_id in block.signers],
    }


def native_block_truth(block: GeneratedBlock, hapi_version: str, accounts: Sequence[str]) -> dict[str, Any]:
    """A native block's entry, its record-file fields as the block's record file has them (version 7,
    the root its hash, the previous root its previous hash; one sidecar file of id 1 without hash)."""
    root, previous = block.root_hash.hex(), block.previous_root_hash.hex()
    sidecars = (
        [
            {
                "id": 1,
                "name": None,
                "types": list(block.sidecar_types),
                "hash": None,
                "record_count": block.sidecar_records,
            }
        ]
        if block.sidecar_records
        else []
    )
    entry = {
        "number": block.block_number,
        "period": block.index,
        "version": NATIVE_BLOCK_VERSION,
        "name": block.path.rsplit("/", 1)[-1],
        "file_hash": root,
        "metadata_hash": None,
        "start_running_hash": previous,
        "end_running_hash": root,
        "previous_file_hash": None,
        "previous_hash": previous,
        "hash": root,
        "consensus_start_ns": block.consensus_start_ns,
        "consensus_end_ns": block.consensus_end_ns,
        "item_count": block.transactions,
        "hapi_version": hapi_version,
        "address_book": None,
        "sidecars": sidecars,
    }
    entry.update(block_file_truth(block, accounts))
    return entry


def _by_account(balances: Mapping[int, int]) -> dict[str, int]:
    return {account(a): amount for a, amount in sorted(balances.items())}


def token_balances(changes: Mapping[int, Mapping[int, int]]) -> dict[str, dict[str, int]]:
    """Token -> account -> balance, as the truth writes them."""
    return {account(token): _by_account(held) for token, held in sorted(changes.items())}


class JsonLines:
    """Compact JSON texts in a file, one a line: written in order, read back in order."""

    def __init__(self, file: IO[str]) -> None:
        self._file = file

    def write(self, text: str) -> None:
        self._file.write(text)
        self._file.write("\n")

    def texts(self) -> Iterator[str]:
        self._file.flush()
        self._file.seek(0)
        for line in self._file:
            yield line.rstrip("\n")
        self._file.seek(0, 2)


class TruthSpill:
    """Temporary files for the parts of the truth that grow with the stream (its transactions and
    each block's balances), so that a stream written straight to disk keeps none of them in memory;
    each account's consensus times stay in memory at 8 bytes a time."""

    def __init__(self) -> None:
        self._files = ExitStack()
        self.transactions = JsonLines(self._files.enter_context(_temporary_file()))
        self.balances = JsonLines(self._files.enter_context(_temporary_file()))

    def __enter__(self) -> TruthSpill:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._files.close()


def _temporary_file() -> IO[str]:
    return tempfile.TemporaryFile("w+", encoding="utf-8", prefix="hedera-history-truth-")


Section = tuple[str, ...]
"""Where in the truth document a spilled part goes: its keys from the top."""


@dataclass
class TruthCollector:
    """Gathers blocks and transactions as periods are generated, then writes the document."""

    config: GeneratorConfig
    nodes: Sequence[NodeInfo]
    genesis: Genesis
    start_running_hash: bytes
    spill: TruthSpill | None = None
    """Where transactions and block balances go instead of memory (``spilled_sections`` gives them)."""
    blocks: list[dict[str, Any]] = field(default_factory=list)
    transactions: list[dict[str, Any]] = field(default_factory=list)
    transaction_count: int = 0
    balances_by_block: dict[str, dict[str, int]] = field(default_factory=dict)
    stake_updates: list[dict[str, Any]] = field(default_factory=list)
    token_balances_by_block: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    """Block -> token -> account -> balance of what the block changed (``GeneratorConfig.tokens``)."""
    _history: dict[int, array[int]] = field(default_factory=dict)
    """Each account's consensus times, 8 bytes each (a list of ints costs five times that)."""
    _items_in_block: dict[int, int] = field(default_factory=dict)
    _open_balances: tuple[str, dict[str, int]] | None = None
    """Spilling: the last block's balances, open while a second file of the same number may follow."""

    def add_block(
        self,
        period: GeneratedPeriod,
        items: Sequence[GeneratedItem],
        book_index: int,
        changed: Mapping[int, int],
        *,
        root_hash: bytes | None = None,
        block: GeneratedBlock | None = None,
        token_changes: Mapping[int, Mapping[int, int]] | None = None,
    ) -> None:
        """A record file's period; ``root_hash``: its wrapped block's root in a stream that cuts over
        to blocks; ``block``: the wrapped block the period was published as."""
        signers = self.config.signers_at(period.index)
        signing = [n.account for n in self.nodes if signers is None or n.node_id in signers]
        entry = block_truth(period, self.config.hapi_version_text, book_index, signing)
        if root_hash is not None:
            entry.update(kind="record", root_hash=root_hash.hex())
        if block is not None:
            entry.update(block_file_truth(block, [n.account for n in self.nodes]))
        self._add_entry(entry, period.block_number, period.index, items, changed)
        self._add_token_balances(period.block_number, token_changes)

    def add_native_block(
        self,
        block: GeneratedBlock,
        items: Sequence[GeneratedItem],
        changed: Mapping[int, int],
        token_changes: Mapping[int, Mapping[int, int]] | None = None,
    ) -> None:
        hapi_version = ".".join(str(part) for part in self.config.block_hapi_version)
        entry = native_block_truth(block, hapi_version, [n.account for n in self.nodes])
        self._add_entry(entry, block.block_number, block.index, items, changed)
        self._add_token_balances(block.block_number, token_changes)

    def _add_token_balances(self, block_number: int, changes: Mapping[int, Mapping[int, int]] | None) -> None:
        if not self.config.tokens or changes is None:
            return
        merged = self.token_balances_by_block.setdefault(str(block_number), {})
        for token, held in token_balances(changes).items():
            merged.setdefault(token, {}).update(held)

    def _add_entry(
        self,
        entry: dict[str, Any],
        block_number: int,
        period_index: int,
        items: Sequence[GeneratedItem],
        changed: Mapping[int, int],
    ) -> None:
        self.blocks.append(entry)
        # A block number given to two files (the duplicate block) is one block, as the reference
        # merges it: the second file's items follow the first's.
        first_index = self._items_in_block.get(block_number, 0)
        self._items_in_block[block_number] = first_index + len(items)
        for index, item in enumerate(items, start=first_index):
            facts = item.facts
            touched = facts.accounts_touched()
            truth = transaction_truth(facts, block_number, index, touched)
            self.transaction_count += 1
            if self.spill is None:
                self.transactions.append(truth)
            else:
                self.spill.transactions.write(json.dumps(truth, separators=COMPACT))
            for num in touched:
                self._history.setdefault(num, array("q")).append(facts.consensus_ns)
        self._add_balances(str(block_number), _by_account(changed))
        stakes = self.config.stake_update_at(period_index)
        if stakes is not None:
            self.stake_updates.append(
                {
                    "period": period_index,
                    "block_number": block_number,
                    "consensus_ns": next(
                        (i.facts for i in items if i.facts.type == "node_stake_update"), items[0].facts
                    ).consensus_ns,
                    "stakes": {node.account: stakes[node.node_id] for node in self.nodes},
                }
            )

    def _add_balances(self, block: str, balances: dict[str, int]) -> None:
        if self.spill is None:
            self.balances_by_block.setdefault(block, {}).update(balances)
        elif self._open_balances is not None and self._open_balances[0] == block:
            self._open_balances[1].update(balances)
        else:
            self._close_balances()
            self._open_balances = (block, balances)

    def _close_balances(self) -> None:
        if self.spill is not None and self._open_balances is not None:
            block, balances = self._open_balances
            self.spill.balances.write(f"{json.dumps(block)}:{json.dumps(balances, separators=COMPACT)}")
            self._open_balances = None

    def spilled_sections(self) -> dict[Section, Iterator[str]]:
        """The parts ``document`` leaves empty when spilling, each as the pieces of its compact JSON
        text; none when nothing is spilled."""
        if self.spill is None:
            return {}
        self._close_balances()
        accounts = (
            f"{json.dumps(account(a))}:{json.dumps(list(reversed(times)), separators=COMPACT)}"
            for a, times in sorted(self._history.items())
        )
        return {
            ("transactions",): _joined("[", self.spill.transactions.texts(), "]"),
            ("accounts",): _joined("{", accounts, "}"),
            ("balances", "by_block"): _joined("{", self.spill.balances.texts(), "}"),
        }

    def document(
        self,
        ledger: Ledger,
        books: Sequence[BookEpoch],
        council: Sequence[ed25519.Ed25519PrivateKey],
        rotated_node: int | None,
        *,
        tss: Mapping[str, Any] | None = None,
        token_state: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The truth document; ``tss``: the ledger a stream with native blocks is signed under;
        ``token_state``: the token service's (``gen.token_truth``), in a stream with tokens."""
        document = self._document(ledger, books, council, rotated_node)
        if token_state is not None:
            document["token_state"] = dict(token_state)
        config = self.config
        if config.cutover_after is not None:
            document["config"].update(
                cutover_after=config.cutover_after,
                wrapped_periods=config.wrapped_periods,
                block_hapi_version=".".join(str(part) for part in config.block_hapi_version),
                sign_every=config.sign_every,
                flat_blocks=config.flat_blocks,
            )
            first_wrapped = config.cutover_after
            first_native = first_wrapped + config.wrapped_periods
            document["cutover"] = {
                "record_periods": min(first_wrapped, config.periods),
                "first_wrapped_block": config.block_number_of(first_wrapped)
                if config.wrapped_periods and first_wrapped < config.periods
                else None,
                "first_native_block": config.block_number_of(first_native) if first_native < config.periods else None,
            }
            document["tss"] = dict(tss or {})
        return document

    def _document(
        self,
        ledger: Ledger,
        books: Sequence[BookEpoch],
        council: Sequence[ed25519.Ed25519PrivateKey],
        rotated_node: int | None,
    ) -> dict[str, Any]:
        config, genesis = self.config, self.genesis
        return {
            "format": TRUTH_FORMAT,
            "config": {
                "nodes": config.nodes,
                "periods": config.periods,
                "transactions": config.transactions,
                "sidecars": config.sidecars,
                "seed": config.seed,
                "layout": layout_name(config.layout),
                "network": config.network,
                "start_block": config.start_block,
                "hapi_version": config.hapi_version_text,
                "period_seconds": config.period_seconds,
                "start_time_ns": config.start_time_ns,
                "accounts": config.accounts,
                "council_keys": config.council_keys,
                "rotate_key": config.rotate_key,
                "eras": [list(era) for era in config.era_list],
                "duplicate_block_at": config.duplicate_block_at,
                "stake_updates": [[period, list(stakes)] for period, stakes in config.stake_update_table],
                "signers": [[period, list(node_ids)] for period, node_ids in config.signer_table],
            },
            "nodes": [{"account": n.account, "node_id": n.node_id, "stake": n.stake} for n in self.nodes],
            "address_books": [
                {
                    "index": index,
                    "first_block": epoch.first_block,
                    "last_block": epoch.last_block,
                    "updated_in_block": epoch.updated_in_block,
                    "file": address_book_file(epoch),
                    "sha384": sha384(epoch.book).hex(),
                    "key_generations": {node.account: epoch.key_generations[node.node_id] for node in self.nodes},
                }
                for index, epoch in enumerate(books)
            ],
            "rotated_node": account(rotated_node) if rotated_node is not None else None,
            "council_keys": [ed25519_public_bytes(key).hex() for key in council],
            "start_running_hash": self.start_running_hash.hex(),
            "blocks": self.blocks,
            "duplicate_blocks": self._duplicate_blocks(),
            "stake_updates": self.stake_updates,
            # Spilled parts stay empty here: the truth file's writer streams them in (gen.writer).
            "transactions": self.transactions,
            "accounts": {}
            if self.spill is not None
            else {account(a): list(reversed(times)) for a, times in sorted(self._history.items())},
            "balances": {
                "genesis": _by_account(genesis.hbar),
                "final": _by_account(ledger.hbar),
                "by_block": self.balances_by_block,
            },
            "tokens": {
                account(genesis.fungible_token): {
                    "type": "FUNGIBLE_COMMON",
                    "decimals": FUNGIBLE_DECIMALS,
                    "genesis": _by_account(genesis.fungible),
                    "final": _by_account({a: units for a, units in ledger.fungible.items() if units}),
                },
                account(genesis.nft_token): {
                    "type": "NON_FUNGIBLE_UNIQUE",
                    "genesis_owners": {str(s): account(o) for s, o in sorted(genesis.nft_owners.items())},
                    "final_owners": {str(s): account(o) for s, o in sorted(ledger.nft_owners.items())},
                },
            },
            "contracts": [account(c) for c in ledger.contracts],
            "counts": {
                "blocks": len({b["number"] for b in self.blocks}),
                "transactions": self.transaction_count,
                "sidecar_files": sum(len(b["sidecars"]) for b in self.blocks),
            },
        }

    def _duplicate_blocks(self) -> list[dict[str, Any]]:
        """Block numbers two files carry: the number and the files, in stream order."""
        files: dict[int, list[str]] = {}
        for block in self.blocks:
            files.setdefault(block["number"], []).append(block["name"])
        return [{"number": n, "files": names} for n, names in files.items() if len(names) > 1]


def _joined(opening: str, pieces: Iterator[str], closing: str) -> Iterator[str]:
    yield opening
    for index, piece in enumerate(pieces):
        if index:
            yield ","
        yield piece
    yield closing
