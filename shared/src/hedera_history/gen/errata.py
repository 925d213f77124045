"""A generated stream with HIP-639 export errors and the signed errata that fix them.

``generate_errata_scenario`` writes a normal stream except for two periods:

- case 1, *missing record*: in period 1 the network handles a plain hbar transfer (the ledger, so
  the balances, include it) but the record file leaves it out;
- case 2, *inconsistent record*: in period 2 the record file carries a successful-looking transfer
  the network never applied (a phantom built on a scratch ledger).

Then the errata, in the order they are issued: (with ``supersede``) a wrong errata for the
missing record at a time T2 in period 2 (a wrong amount, with matching compensation), the errata
that fixes it at T3 in period 3 (the right record, compensating the difference, as the HIP's T1,
T2, T3 story has it), and the errata removing the phantom in period 3 (compensation: the reverse
of its transfers). Each is signed by a council super-majority and by every node.

The scenario's ``corrected`` document is the ground truth once every errata is applied: the
transactions and account histories as they should have been, and the balances a mirror following
the HIP holds: the stream's own transfers, with compensations taking effect at their errata's
time (``by_block``). From the last errata on these equal the network's state
(``node_state_by_block``, ``final``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hedera_history import hapi
from hedera_history.errata.authority import super_majority
from hedera_history.errata.codec import (
    encode_errata_body,
    encode_errata_file,
    parse_errata_file,
    record_stream_item_bytes,
)
from hedera_history.errata.errata_file import CouncilSignature, errata_id
from hedera_history.errata.errata_paths import errata_path
from hedera_history.errata.signing import node_signature_file
from hedera_history.errata.synthetic import synthetic_transfer_item
from hedera_history.errors import GeneratorError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity
from hedera_history.gen.config_and_output import NS_PER_SECOND, GeneratedStream, GeneratorConfig, NodeRef
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.items import Draft, ItemWriter, fill_amounts, set_transaction_id
from hedera_history.gen.keys import ed25519_public_bytes
from hedera_history.gen.ledger import Ledger, genesis_state
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.truth import account, transaction_truth

MISSING_PERIOD = 1
INCONSISTENT_PERIOD = 2
FIX_PERIOD = 3
MIN_PERIODS = 4
WRONG_AMOUNT_DELTA = 1_000
"""How far the superseded errata's record is off (tinybar moved to the receiver in excess)."""
_PHANTOM_AMOUNT = 7 * 10**8
_PHANTOM_FEE = 123_456


@dataclass(frozen=True)
class GeneratedErrata:
    role: str
    """``missing-wrong`` (superseded), ``missing`` or ``inconsistent``."""
    consensus_ns: int
    time_of_error: int
    data: bytes = field(repr=False)
    """The errata file, council signatures included."""
    node_signatures: Mapping[str, bytes] = field(repr=False)
    """Node account -> its signature file."""
    objects: Mapping[str, bytes] = field(repr=False)
    """Bucket paths (the stream's layout) -> bytes: the errata file and every node's signature."""
    body: bytes = field(repr=False)

    @property
    def errata_id(self) -> str:
        return errata_id(self.consensus_ns, self.body)

    @property
    def path(self) -> str:
        """The errata file's path in the bucket."""
        return next(p for p in self.objects if p.endswith(".errata"))


@dataclass(frozen=True)
class ErrataScenario:
    stream: GeneratedStream
    """As written: its truth describes the files (phantom in, missing record out)."""
    errata: tuple[GeneratedErrata, ...]
    """In the order they were issued."""
    missing: dict[str, Any]
    """Transaction truth of the record the stream left out."""
    inconsistent: dict[str, Any]
    """Transaction truth of the phantom record the stream carries."""
    corrected: dict[str, Any] = field(repr=False)
    """Ground truth once every errata is applied (see the module docstring)."""
    snapshot: dict[str, Any] = field(repr=False)
    """Starting balances for derived state: ``{"consensus_ns", "balances"}`` (genesis)."""

    @property
    def council_keys(self) -> tuple[str, ...]:
        return tuple(ed25519_public_bytes(key).hex() for key in self.stream.keys.council)

    @property
    def objects(self) -> dict[str, bytes]:
        """Every bucket object: the stream's and every errata's."""
        out = dict(self.stream.objects)
        for errata in self.errata:
            out.update(errata.objects)
        return out


@dataclass
class _Edits:
    """What the item editor did, for building the errata afterwards."""

    seed: int
    config: GeneratorConfig
    written: dict[int, list[GeneratedItem]] = field(default_factory=dict)
    missing: tuple[GeneratedItem, int] | None = None
    """The left-out item and its index among the handled items."""
    phantom: GeneratedItem | None = None

    def __call__(self, period: int, items: list[GeneratedItem]) -> list[GeneratedItem]:
        if period == MISSING_PERIOD:
            index = _pick_missing(items)
            self.missing = (items[index], index)
            items = items[:index] + items[index + 1 :]
        elif period == INCONSISTENT_PERIOD:
            at = len(items) // 3
            time = (items[at].facts.consensus_ns + items[at + 1].facts.consensus_ns) // 2
            self.phantom = _phantom(self.seed, self.config, time)
            items = [*items[: at + 1], self.phantom, *items[at + 1 :]]
        self.written[period] = items
        return items


def generate_errata_scenario(config: GeneratorConfig | None = None, *, supersede: bool = True) -> ErrataScenario:
    config = config or GeneratorConfig(nodes=4, periods=5, transactions=16, seed=3)
    if config.periods < MIN_PERIODS or config.transactions < 6:
        raise GeneratorError(f"an errata scenario needs at least {MIN_PERIODS} periods of 6 items")
    edits = _Edits(config.seed, config)
    stream = generate_stream(config, edit_items=edits)
    assert edits.missing is not None and edits.phantom is not None
    missing, missing_index = edits.missing
    phantom = edits.phantom
    missing_block = config.start_block + MISSING_PERIOD
    missing_truth = transaction_truth(missing.facts, missing_block, missing_index)
    phantom_truth = next(t for t in stream.truth["transactions"] if t["consensus_ns"] == phantom.facts.consensus_ns)

    times = iter(_free_times(edits.written, [INCONSISTENT_PERIOD, FIX_PERIOD, FIX_PERIOD]))
    missing_item = RecordItem(missing.transaction_bytes, missing.record_bytes, missing.facts.consensus_ns)
    true_moves = list(missing.facts.hbar_transfers)
    errata: list[GeneratedErrata] = []
    compensations: list[tuple[int, list[tuple[int, int]]]] = []

    def add(role: str, at: int, time_of_error: int, item: RecordItem | None, moves: list[tuple[int, int]]) -> None:
        errata.append(
            _errata(stream, role, consensus_ns=at, time_of_error=time_of_error, correct_item=item, moves=moves)
        )
        compensations.append((at, moves))

    wrong_moves: list[tuple[int, int]] = []
    wrong_time = next(times)
    if supersede:
        wrong_item, wrong_moves = _wrong_record(missing_item)
        add("missing-wrong", wrong_time, missing_item.consensus_ns, wrong_item, wrong_moves)
    add("missing", next(times), missing_item.consensus_ns, missing_item, _minus(true_moves, wrong_moves))
    reverse = [(a, -amount) for a, amount in phantom.facts.hbar_transfers]
    add("inconsistent", next(times), phantom.facts.consensus_ns, None, reverse)

    corrected = _corrected_truth(stream, missing_truth, phantom_truth, compensations)
    snapshot = {"consensus_ns": config.start_time_ns - 1, "balances": stream.truth["balances"]["genesis"]}
    return ErrataScenario(stream, tuple(errata), missing_truth, phantom_truth, corrected, snapshot)


def build_errata(
    stream: GeneratedStream,
    *,
    consensus_ns: int,
    time_of_error: int,
    correct_item: RecordItem | None,
    compensations: Sequence[tuple[str, int]] = (),
    council_signers: Sequence[int] | None = None,
    node_signers: Sequence[NodeRef] | None = None,
) -> tuple[bytes, dict[str, bytes]]:
    """An errata file for ``stream`` and node signature files (by node account).

    ``council_signers`` are indexes of the stream's council keys (default: a super-majority);
    ``node_signers`` the nodes that sign (default: all), each with the key its address book holds
    for the block of ``consensus_ns``.
    """
    items = [synthetic_transfer_item(consensus_ns, compensations, memo="HIP-639 compensation")] if compensations else []
    body = encode_errata_body(
        time_of_error, record_stream_item_bytes(correct_item) if correct_item is not None else None, items
    )
    council = stream.keys.council
    signers = range(super_majority(len(council))) if council_signers is None else council_signers
    signatures = [CouncilSignature(ed25519_public_bytes(council[i]), council[i].sign(body)) for i in signers]
    data = encode_errata_file(consensus_ns, body, signatures)
    block = _block_at(stream, consensus_ns)
    nodes = [
        stream.node(ref) for ref in (node_signers if node_signers is not None else [n.node_id for n in stream.nodes])
    ]
    return data, {node.account: node_signature_file(data, stream.signing_key(node.node_id, block)) for node in nodes}


def errata_objects(
    stream: GeneratedStream, consensus_ns: int, data: bytes, signatures: Mapping[str, bytes]
) -> dict[str, bytes]:
    """Bucket paths for an errata file and its node signatures in the stream's layout."""
    config = stream.config
    where = errata_path(config.layout, consensus_ns, network=config.network)
    objects = {where.errata_file: data}
    for node_account, signature in signatures.items():
        node = stream.node(node_account)
        identity = (
            NodeIdentity(account=node.account)
            if config.layout is BucketLayout.ACCOUNT
            else NodeIdentity(node_id=node.node_id)
        )
        objects[where.signature_path(identity)] = signature
    return objects


# ---- building blocks -------------------------------------------------------------------------


def _errata(
    stream: GeneratedStream,
    role: str,
    *,
    consensus_ns: int,
    time_of_error: int,
    correct_item: RecordItem | None,
    moves: Sequence[tuple[int, int]],
) -> GeneratedErrata:
    transfers = [(account(a), amount) for a, amount in moves if amount]
    data, signatures = build_errata(
        stream,
        consensus_ns=consensus_ns,
        time_of_error=time_of_error,
        correct_item=correct_item,
        compensations=transfers,
    )
    body = parse_errata_file(data, role).body_bytes
    return GeneratedErrata(
        role=role,
        consensus_ns=consensus_ns,
        time_of_error=time_of_error,
        data=data,
        node_signatures=signatures,
        objects=errata_objects(stream, consensus_ns, data, signatures),
        body=body,
    )


def _pick_missing(items: Sequence[GeneratedItem]) -> int:
    """A plain successful hbar transfer, not the first item, whose transaction id is its own."""
    ids = [(i.facts.payer, i.facts.valid_start_ns) for i in items]
    for index, item in enumerate(items):
        facts = item.facts
        if (
            index > 0
            and facts.type == "cryptoTransfer"
            and facts.status == "SUCCESS"
            and facts.node is not None
            and not facts.token_transfers
            and not facts.nft_transfers
            and ids.count((facts.payer, facts.valid_start_ns)) == 1
        ):
            return index
    raise GeneratorError("no plain hbar transfer to leave out of the missing-record period")


def _phantom(seed: int, config: GeneratorConfig, consensus_ns: int) -> GeneratedItem:
    """A successful-looking hbar transfer written on a scratch ledger: the network never applied it."""
    genesis = genesis_state(config.nodes, config.accounts)
    writer = ItemWriter(seed, Ledger(genesis))
    payer, receiver = genesis.user_accounts[0], genesis.user_accounts[1]
    node = genesis.node_accounts[0]
    valid_start = consensus_ns - 3 * NS_PER_SECOND - 271_828
    body = hapi.TransactionBody()
    set_transaction_id(body.transactionID, payer, valid_start)
    body.nodeAccountID.accountNum = node
    body.transactionFee = 200_000_000
    body.transactionValidDuration.seconds = 120
    body.memo = "inconsistent record"
    moves = {payer: -_PHANTOM_AMOUNT, receiver: _PHANTOM_AMOUNT}
    fill_amounts(body.cryptoTransfer.transfers.accountAmounts, moves)
    return writer.finish(Draft(body, payer, valid_start, consensus_ns, node), _PHANTOM_FEE, moves)


def _wrong_record(item: RecordItem) -> tuple[RecordItem, list[tuple[int, int]]]:
    """The item with a record that moves WRONG_AMOUNT_DELTA too much to the receiver."""
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    amounts = record.transferList.accountAmounts
    payer = record.transactionID.accountID.accountNum
    for entry in amounts:
        if entry.accountID.accountNum == payer:
            entry.amount -= WRONG_AMOUNT_DELTA
        elif entry.amount > 0 and entry.accountID.accountNum >= 1000:
            entry.amount += WRONG_AMOUNT_DELTA
    moves = [(int(e.accountID.accountNum), int(e.amount)) for e in amounts]
    if sum(amount for _, amount in moves) != 0:
        raise GeneratorError("could not build a balanced wrong record")
    return RecordItem(item.transaction_bytes, record.SerializeToString(), item.consensus_ns), moves


def _minus(first: Sequence[tuple[int, int]], second: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: dict[int, int] = {}
    for a, amount in first:
        out[a] = out.get(a, 0) + amount
    for a, amount in second:
        out[a] = out.get(a, 0) - amount
    return sorted((a, amount) for a, amount in out.items() if amount)


def _free_times(written: Mapping[int, Sequence[GeneratedItem]], periods: Sequence[int]) -> list[int]:
    """One errata time per entry of ``periods``: just after an item of that period (from its middle
    on), at no item's time, after a different item each time (so errata in one period stay apart)."""
    taken = {i.facts.consensus_ns for items in written.values() for i in items}
    used: set[tuple[int, int]] = set()
    out = []
    for period in periods:
        items = written[period]
        for position in range(len(items) // 2, len(items) - 1):
            time = items[position].facts.consensus_ns + 7
            if (period, position) in used or time in taken or time >= items[position + 1].facts.consensus_ns:
                continue
            used.add((period, position))
            out.append(time)
            break
        else:
            raise GeneratorError(f"no free errata time in period {period}")
    return out


def _block_at(stream: GeneratedStream, consensus_ns: int) -> int:
    """The block whose period holds ``consensus_ns`` (the last one for later times)."""
    config = stream.config
    period = (consensus_ns - config.start_time_ns) // config.period_ns
    return config.start_block + max(0, min(period, config.periods - 1))


def _corrected_truth(
    stream: GeneratedStream,
    missing: dict[str, Any],
    phantom: dict[str, Any],
    compensations: Sequence[tuple[int, Sequence[tuple[int, int]]]],
) -> dict[str, Any]:
    truth = stream.truth
    transactions = [t for t in truth["transactions"] if t["consensus_ns"] != phantom["consensus_ns"]]
    transactions.append(missing)
    transactions.sort(key=lambda t: t["consensus_ns"])
    history: dict[str, list[int]] = {}
    for tx in transactions:
        for touched in tx["accounts_touched"]:
            history.setdefault(touched, []).append(tx["consensus_ns"])
    balances = dict(truth["balances"]["genesis"])
    by_block: dict[str, dict[str, int]] = {}
    written = sorted(truth["transactions"], key=lambda t: t["consensus_ns"])
    bound = -1
    pending = sorted((time, [(account(a), amount) for a, amount in moves]) for time, moves in compensations)
    for block in truth["blocks"]:
        end = block["consensus_end_ns"]
        events: list[tuple[int, int, list[tuple[str, int]]]] = [
            (t["consensus_ns"], 0, [(m["account"], m["amount"]) for m in t["hbar_transfers"]])
            for t in written
            if t["block_number"] == block["number"]
        ]
        events.extend((time, 1, moves) for time, moves in pending if bound < time <= end)
        changed: set[str] = set()
        for _, _, moves in sorted(events, key=lambda e: (e[0], e[1])):
            for who, amount in moves:
                if amount:
                    balances[who] = balances.get(who, 0) + amount
                    changed.add(who)
        by_block[str(block["number"])] = {who: balances[who] for who in sorted(changed)}
        bound = end
    final = truth["balances"]["final"]
    if any(balances.get(a, 0) != final.get(a, 0) for a in set(balances) | set(final)):
        raise GeneratorError("the errata do not bring the balances back to the network's state")
    return {
        "transactions": transactions,
        "accounts": {a: sorted(times, reverse=True) for a, times in sorted(history.items())},
        "balances": {
            "genesis": truth["balances"]["genesis"],
            "final": truth["balances"]["final"],
            "by_block": by_block,
            "node_state_by_block": truth["balances"]["by_block"],
        },
        "originals": {
            str(phantom["consensus_ns"]): {"present": True, "hash": phantom["hash"]},
            str(missing["consensus_ns"]): {"present": False},
        },
    }
