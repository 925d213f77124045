"""``generate_stream``: a whole signed stream, in memory, with its ground truth.

Per period: plan the transactions, build them through the ledger, chain the hashes, write the
record file in its era's format and (V6, when there are contract sidecar records) one sidecar
file, then give every node its copies (V6: its own gzip copies) and a signature file signed with
the key its address book entry holds for that block. A 0.0.102 update halfway rotates one node's
key; the new book is in force from the block after the one that carried it.

After a cutover (``GeneratorConfig.cutover_after``) a period becomes a wrapped record block, then a
native block, instead (:mod:`~hedera_history.gen.block_stream`), its transactions the same.

Eras (``GeneratorConfig.eras``) chain as the network did: V1/V2 files name the previous file's
hash, V5 and V6 files carry running hashes, and the first V5 (or V6) file after a V2 file starts
its running hash from that V2 file's hash.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from hedera_history.errors import GeneratorError
from hedera_history.formats.compression import Deflated, deflate, gzip_member
from hedera_history.formats.hashing import running_hash, sha384, v6_metadata_hash
from hedera_history.formats.names import StreamFileName, record_file_name
from hedera_history.formats.parsed_files import SidecarMetadata
from hedera_history.formats.record_v2 import file_hash_v2, write_record_v2
from hedera_history.formats.record_v5 import metadata_hash_v5, write_record_v5
from hedera_history.formats.record_v6 import write_record_v6
from hedera_history.formats.sidecar import write_sidecar_file
from hedera_history.gen import keys as keygen
from hedera_history.gen.block_items import native_facts
from hedera_history.gen.block_stream import BlockPeriods, Signer, publication_body
from hedera_history.gen.books import address_book_bytes, file_chunks
from hedera_history.gen.config_and_output import (
    FIRST_NODE_ACCOUNT,
    LEDGER_PUBLICATION_FILE,
    NS_PER_SECOND,
    BookEpoch,
    GeneratedBlock,
    GeneratedPeriod,
    GeneratedSidecar,
    GeneratedStream,
    GeneratedUnit,
    GeneratorConfig,
    NodeInfo,
    PeriodKind,
    StreamKeys,
    node_object_path,
)
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.ledger import Ledger, genesis_state
from hedera_history.gen.period_mix import (
    COVERAGE,
    NETWORK_FILES_MIX,
    TOKENS_COVERAGE,
    TOKENS_MIX,
    TOPIC_MIX,
    TxKind,
    group_size,
    plan_period,
)
from hedera_history.gen.signing import signed_signature_file
from hedera_history.gen.token_truth import token_state
from hedera_history.gen.transactions import TransactionFactory
from hedera_history.gen.truth import Section, TruthCollector, TruthSpill
from hedera_history.verify.signatures import sign_hash

_DERIVATION = "hedera-history/gen/v1"
_SIDECAR_ID = 1
LEGACY_HEADER_HAPI_INT = 3
"""The second int32 of V1 and V2 headers, as the network's files carry it."""


@dataclass(frozen=True, slots=True)
class _Rotation:
    period: int
    """Index of the period whose block carries the new book."""
    node_id: int
    chunks: tuple[bytes, ...]


def start_running_hash(seed: int) -> bytes:
    """The running hash before the first generated block."""
    return sha384(f"{_DERIVATION}/start-running-hash/{seed}".encode())


ItemEditor = Callable[[int, list[GeneratedItem]], list[GeneratedItem]]
"""``(period index, items as the network handled them) -> items as written to the stream``."""


def generate_stream(
    config: GeneratorConfig,
    on_period: Callable[[GeneratedUnit], None] | None = None,
    *,
    edit_items: ItemEditor | None = None,
) -> GeneratedStream:
    """Generate the stream ``config`` describes; ``on_period`` is called after each period.

    ``edit_items`` lets a caller write a period differently from how the network handled it (an
    item left out, one added; see ``gen.errata``): the ledger, and so the balances of the ground
    truth, follow the handled items; the written file, its hashes and the truth's blocks and
    transactions follow the written ones.
    """
    return _Generator(config).run(on_period, edit_items)


class StreamBuilder:
    """A stream generated period by period, as :func:`generate_stream` does it in one go.

    ``next_period()`` gives the next period with the objects every node uploads for it (record,
    sidecars, signature files, in the configured layout); ``stream()`` the stream generated so far,
    its config, truth and books ending at the last period generated. Periods chain exactly as in
    a stream generated whole, and a builder run to ``config.periods`` gives that stream.
    """

    def __init__(self, config: GeneratorConfig, *, retain: bool = True, spill: TruthSpill | None = None) -> None:
        """``retain=False``: the builder keeps no period and no uploaded file once ``next_period``
        has returned them, and ``stream()`` holds neither; with ``spill`` the parts of the truth
        that grow with the stream go to its files, left empty in ``stream().truth`` and given by
        ``spilled_truth()``, so memory stays flat however long the stream."""
        self._generator = _Generator(config, retain=retain, spill=spill)

    @property
    def config(self) -> GeneratorConfig:
        return self._generator.config

    @property
    def nodes(self) -> tuple[NodeInfo, ...]:
        return self._generator.nodes

    @property
    def bootstrap_book(self) -> bytes:
        """The address book in force from the first block."""
        return self._generator.bootstrap_book

    @property
    def keys(self) -> StreamKeys:
        """Every node key the stream will sign with (a rotated key included) and the council keys."""
        return StreamKeys(node_keys=dict(self._generator.node_keys), council=self._generator.council)

    @property
    def generated(self) -> int:
        """Periods generated so far."""
        return self._generator.generated

    @property
    def ledger_publication(self) -> bytes | None:
        """The ``SignedTransaction`` publishing the TSS ledger native blocks are signed under (None
        for a record stream): block 0's first transaction, known before any period."""
        periods = self._generator.block_periods
        return periods.tss.ledger_publication() if periods is not None else None

    def spilled_truth(self) -> dict[Section, Iterator[str]]:
        """The parts of the truth the spill holds, as compact JSON text (``TruthCollector.spilled_sections``)."""
        return self._generator.truth.spilled_sections()

    def next_period(self) -> tuple[GeneratedUnit, dict[str, bytes]]:
        """The next period (a record file, or a block after the cutover) and the objects ready to
        upload: its own, and after a signed native block those of the blocks its signature proves."""
        return self._generator.step()

    def stream(self) -> GeneratedStream:
        return self._generator.result()


class _Generator:
    def __init__(self, config: GeneratorConfig, *, retain: bool = True, spill: TruthSpill | None = None) -> None:
        self.config = config
        self.retain = retain
        self.spill = spill
        self.rng = random.Random(f"{_DERIVATION}/{config.seed}")
        self.nodes = tuple(
            NodeInfo(
                node_id=i,
                account=f"0.0.{FIRST_NODE_ACCOUNT + i}",
                stake=config.stakes[i] if config.stakes is not None else 1,
            )
            for i in range(config.nodes)
        )
        self.node_keys = {(n.node_id, 0): keygen.node_rsa_key(config.seed, n.node_id) for n in self.nodes}
        self.council = tuple(keygen.council_key(config.seed, i) for i in range(config.council_keys))
        self.genesis = genesis_state(config.nodes, config.accounts, staking_rewards=config.staking_rewards)
        self.ledger = Ledger(self.genesis)
        self.genesis_tokens = self.ledger.tokens.all_balances()
        self.factory = TransactionFactory(
            config.seed,
            self.rng,
            self.ledger,
            node_accounts=self.genesis.node_accounts,
            tokens=(self.genesis.fungible_token, self.genesis.nft_token),
            sidecars=config.sidecars,
            staking_rewards=config.staking_rewards,
            contract_logs=config.contract_logs,
        )
        self.generations = [0] * config.nodes
        self._endpoints_seed = config.seed if config.node_endpoints else None
        self.bootstrap_book = address_book_bytes(
            self.nodes, self.node_keys, self.generations, endpoints_seed=self._endpoints_seed
        )
        self.rotation = self._plan_rotation()
        self._deflated: tuple[int, list[tuple[StreamFileName, Deflated]]] | None = None
        self.block_periods = BlockPeriods(config, self.nodes, self.genesis.hbar) if config.has_blocks else None
        self._begin()

    def _plan_rotation(self) -> _Rotation | None:
        config = self.config
        # RSA-3072 keys have one DER size, so the new book splits like the bootstrap one.
        if not config.rotate_key or config.periods < 4 or len(file_chunks(self.bootstrap_book)) > config.transactions:
            return None
        node_id = config.seed % config.nodes
        self.node_keys[(node_id, 1)] = keygen.node_rsa_key(config.seed, node_id, 1)
        generations = list(self.generations)
        generations[node_id] = 1
        book = address_book_bytes(self.nodes, self.node_keys, generations, endpoints_seed=self._endpoints_seed)
        chunks = tuple(file_chunks(book))
        if len(chunks) > config.transactions:
            raise GeneratorError(
                f"the new address book needs {len(chunks)} items, a period holds {config.transactions}"
            )
        period = config.periods // 2
        if config.duplicate_block_at is not None and config.block_number_of(period) == config.duplicate_block_at:
            # Both files of the duplicate block are signed under one book: the second carries the update.
            period = config.duplicate_block_at - config.start_block + 1
        return _Rotation(period=period, node_id=node_id, chunks=chunks)

    def run(
        self, on_period: Callable[[GeneratedUnit], None] | None, edit_items: ItemEditor | None = None
    ) -> GeneratedStream:
        for _ in range(self.config.periods):
            period, _objects = self.step(edit_items)
            if on_period is not None:
                on_period(period)
        return self.result()

    def _begin(self) -> None:
        config = self.config
        self.truth = TruthCollector(
            config,
            self.nodes,
            self.genesis,
            start_running_hash(config.seed),
            spill=self.spill,
        )
        self.objects: dict[str, bytes] = {}
        self.periods: list[GeneratedPeriod] = []
        self.blocks: list[GeneratedBlock] = []
        self.generated = 0
        self.books: list[tuple[int, tuple[int, ...], bytes, int | None]] = [
            (config.start_block, tuple(self.generations), self.bootstrap_book, None)
        ]
        self.coverage = [TxKind.TOPIC_CREATE] * config.topics + list(COVERAGE)
        if config.topics:
            self.coverage.append(TxKind.TOPIC_CHUNKED_MESSAGE)
        if config.network_files:
            self.coverage[:0] = [TxKind.EXCHANGE_RATE_UPDATE, TxKind.FEE_SCHEDULE_UPDATE]
        if config.tokens:
            self.coverage += TOKENS_COVERAGE
        self.chain = self.truth.start_running_hash

    def step(self, edit_items: ItemEditor | None = None) -> tuple[GeneratedUnit, dict[str, bytes]]:
        """The next period and the objects uploaded for it."""
        config = self.config
        index = self.generated
        if index >= config.periods:
            raise GeneratorError(f"the stream holds {config.periods} periods, all generated")
        block_number = config.block_number_of(index)
        rotating = self.rotation is not None and index == self.rotation.period
        items = self._period_items(index, self.coverage, rotating)
        if edit_items is not None:
            items = edit_items(index, items)
        if config.version_of(index) != 6:
            items = [_without_sidecars(item) for item in items]
        book_index = len(self.books) - 1
        unit: GeneratedUnit
        kind = config.kind_of(index)
        if kind is PeriodKind.NATIVE:
            unit, uploaded = self._native(index, block_number, items)
        else:
            period = self._assemble(index, block_number, self.chain, items)
            self.chain = period.hash
            unit, uploaded = self._record_or_wrapped(kind, period, items, book_index)
        if self.retain:
            self.objects.update(uploaded)
        self.generated += 1
        if rotating and self.rotation is not None:
            self.generations[self.rotation.node_id] = 1
            self.books.append((block_number + 1, tuple(self.generations), b"".join(self.rotation.chunks), block_number))
        return unit, uploaded

    def _record_or_wrapped(
        self, kind: PeriodKind, period: GeneratedPeriod, items: list[GeneratedItem], book_index: int
    ) -> tuple[GeneratedUnit, dict[str, bytes]]:
        changed = self.ledger.take_changed()
        token_changes = self.ledger.tokens.take_changed()
        if kind is PeriodKind.RECORD:
            uploaded: dict[str, bytes] = {}
            self._upload(period, uploaded)
            root = self.block_periods.record(period, items) if self.block_periods is not None else None
            self.truth.add_block(period, items, book_index, changed, root_hash=root, token_changes=token_changes)
            if self.retain:
                self.periods.append(period)
            return period, uploaded
        assert self.block_periods is not None
        block, uploaded = self.block_periods.wrapped(period, items, self._rsa_signers(period.index))
        self.truth.add_block(period, items, book_index, changed, block=block, token_changes=token_changes)
        if self.retain:
            self.blocks.append(block)
        return block, uploaded

    def _native(
        self, index: int, block_number: int, items: list[GeneratedItem]
    ) -> tuple[GeneratedBlock, dict[str, bytes]]:
        assert self.block_periods is not None
        block, uploaded = self.block_periods.native(index, block_number, items, self.config.signers_at(index))
        native = [replace(item, facts=native_facts(item.facts)) for item in items]
        self.truth.add_native_block(block, native, self.ledger.take_changed(), self.ledger.tokens.take_changed())
        if self.retain:
            self.blocks.append(block)
        return block, uploaded

    def _rsa_signers(self, index: int) -> dict[int, Signer]:
        """Who signs period ``index``'s record file, and with which key."""
        chosen = self.config.signers_at(index)
        signers: dict[int, Signer] = {}
        for node in self.nodes:
            if chosen is None or node.node_id in chosen:
                key = self.node_keys[(node.node_id, self.generations[node.node_id])]
                signers[node.node_id] = partial(sign_hash, key)
        return signers

    def result(self) -> GeneratedStream:
        """The stream of the periods generated so far (its config says that many periods)."""
        if not self.generated:
            raise GeneratorError("no period generated yet")
        config = _truncated(self.config, self.generated)
        books = [book for book in self.books if book[0] <= config.end_block]
        epochs = tuple(
            BookEpoch(
                first_block=first,
                last_block=books[i + 1][0] - 1 if i + 1 < len(books) else config.end_block,
                book=book,
                key_generations=generations,
                updated_in_block=updated,
            )
            for i, (first, generations, book, updated) in enumerate(books)
        )
        rotated = self.rotation is not None and self.rotation.period < self.generated
        document = replace(self.truth, config=config).document(
            self.ledger,
            epochs,
            self.council,
            self.rotation.node_id + FIRST_NODE_ACCOUNT if rotated and self.rotation is not None else None,
            tss=self._tss_truth(),
            token_state=token_state(
                self.ledger,
                self.factory.accounts,
                self.genesis_tokens,
                self.truth.token_balances_by_block,
                self.factory.evm_accounts.accounts,
            )
            if self.config.tokens
            else None,
        )
        if config.registered_nodes:
            document["registered_nodes"] = self.factory.registered_nodes.truth()
        return GeneratedStream(
            config=config,
            nodes=self.nodes,
            objects=dict(self.objects),
            address_book=self.bootstrap_book,
            address_books=epochs,
            keys=StreamKeys(node_keys=dict(self.node_keys), council=self.council),
            periods=tuple(self.periods),
            truth=document,
            blocks=tuple(self.blocks),
            ledger_publication=self.block_periods.tss.ledger_publication() if self.block_periods is not None else None,
        )

    def _tss_truth(self) -> dict[str, Any] | None:
        if self.block_periods is None:
            return None
        signer = self.block_periods.tss
        return {
            "ledger_id": signer.ledger_id.hex(),
            "roster": [
                {"node_id": node_id, "account": self.nodes[place].account, "weight": weight}
                for place, (node_id, weight) in enumerate(zip(signer.node_ids, signer.weights, strict=True))
            ],
            "publication_block": 0 if self.config.start_block == 0 else None,
            "publication_file": LEDGER_PUBLICATION_FILE,
        }

    def _period_items(self, index: int, coverage: list[TxKind], rotating: bool) -> list[GeneratedItem]:
        config = self.config
        chunks = self.rotation.chunks if self.rotation is not None else ()
        stakes = config.stake_update_at(index)
        # Block 0 of a network that will stream blocks publishes its TSS ledger id first.
        publishing = self.block_periods is not None and config.block_number_of(index) == 0
        native_index = index - (config.cutover_after or 0) - config.wrapped_periods
        registering = 0
        if config.registered_nodes and config.kind_of(index) is PeriodKind.NATIVE:
            registering = self.factory.registered_nodes.planned(native_index)
        capacity = config.transactions - (stakes is not None) - publishing - registering
        if rotating and len(chunks) > capacity:
            raise GeneratorError(f"period {index}: the address-book update and the stake update need more items")
        groups = plan_period(
            self.rng,
            capacity,
            coverage,
            address_book_update=rotating,
            book_chunks=len(chunks),
            extra_mix={
                **(TOPIC_MIX if config.topics else {}),
                **(NETWORK_FILES_MIX if config.network_files else {}),
                **(TOKENS_MIX if config.tokens else {}),
            },
        )
        slots = self._slots(config.start_time_ns + index * config.period_ns)
        items: list[GeneratedItem] = []
        position = 0
        if publishing and self.block_periods is not None:
            items.append(self.factory.ledger_id_publication(slots[0], publication_body(self.block_periods.tss)))
            position = 1
        if stakes is not None:
            # As on mainnet, the stake update is the first transaction after the day's end.
            items.append(self.factory.node_stake_update(slots[position], stakes))
            position += 1
        if registering:
            items += self.factory.registered_nodes.play(native_index, slots[position : position + registering])
            position += registering
        for kind in groups:
            size = group_size(kind, len(chunks))
            group_slots = slots[position : position + size]
            position += size
            if kind is TxKind.ADDRESS_BOOK_UPDATE:
                items.extend(self.factory.address_book_update(group_slots, chunks))
            else:
                items.extend(self.factory.build(kind, group_slots))
        if len(items) != config.transactions:
            raise GeneratorError(f"period {index}: planned {config.transactions} items, built {len(items)}")
        return items

    def _slots(self, period_start_ns: int) -> list[int]:
        """One consensus time per item: evenly spread over the period with jitter, at least 2 ns
        apart, so a child record at its parent + 1 ns still precedes the next slot."""
        count = self.config.transactions
        gap = self.config.period_ns // (count + 1)
        jitter = max(1, gap // 2)
        return [period_start_ns + j * gap + self.rng.randrange(jitter) for j in range(count)]

    def _assemble(self, index: int, block_number: int, chain: bytes, items: list[GeneratedItem]) -> GeneratedPeriod:
        """Period ``index``'s record file; ``chain`` is what it must name of the file before."""
        version = self.config.version_of(index)
        if version == 6:
            return self._assemble_v6(index, block_number, chain, items)
        if version == 5:
            return self._assemble_v5(index, block_number, chain, items)
        return self._assemble_v2(index, block_number, chain, items, version)

    def _assemble_v2(
        self, index: int, block_number: int, previous: bytes, items: list[GeneratedItem], version: int
    ) -> GeneratedPeriod:
        data = write_record_v2(
            items, previous_file_hash=previous, version=version, header_hapi_int=LEGACY_HEADER_HAPI_INT
        )
        return GeneratedPeriod(
            index=index,
            block_number=block_number,
            record_name=record_file_name(items[0].facts.consensus_ns, compressed=False),
            record_bytes=data,
            file_hash=file_hash_v2(version, data),
            metadata_hash=None,
            start_running_hash=None,
            end_running_hash=None,
            consensus_start_ns=items[0].facts.consensus_ns,
            consensus_end_ns=items[-1].facts.consensus_ns,
            item_count=len(items),
            sidecars=(),
            version=version,
            previous_file_hash=previous,
        )

    def _assemble_v5(self, index: int, block_number: int, start: bytes, items: list[GeneratedItem]) -> GeneratedPeriod:
        end = _running_hash(start, items)
        data = write_record_v5(
            items, hapi_version=self.config.hapi_version, start_running_hash=start, end_running_hash=end
        )
        return GeneratedPeriod(
            index=index,
            block_number=block_number,
            record_name=record_file_name(items[0].facts.consensus_ns, compressed=False),
            record_bytes=data,
            file_hash=sha384(data),
            metadata_hash=metadata_hash_v5(data),
            start_running_hash=start,
            end_running_hash=end,
            consensus_start_ns=items[0].facts.consensus_ns,
            consensus_end_ns=items[-1].facts.consensus_ns,
            item_count=len(items),
            sidecars=(),
            version=5,
        )

    def _assemble_v6(
        self, index: int, block_number: int, start_hash: bytes, items: list[GeneratedItem]
    ) -> GeneratedPeriod:
        config = self.config
        running = _running_hash(start_hash, items)
        name = record_file_name(items[0].facts.consensus_ns, compressed=True)
        sidecars: tuple[GeneratedSidecar, ...] = ()
        sidecar_records = [record for item in items for record in item.sidecar_records]
        if sidecar_records:
            types = tuple(sorted({t for item in items for t in item.facts.sidecar_types}))
            sidecars = (
                GeneratedSidecar(
                    name=name.sidecar(_SIDECAR_ID),
                    data=write_sidecar_file(sidecar_records),
                    types=types,
                    record_count=len(sidecar_records),
                ),
            )
        promises = [SidecarMetadata(s.name.sidecar_id or _SIDECAR_ID, s.types, sha384(s.data)) for s in sidecars]
        record_bytes = write_record_v6(
            items,
            hapi_version=config.hapi_version,
            start_running_hash=start_hash,
            end_running_hash=running,
            block_number=block_number,
            sidecars=promises,
        )
        return GeneratedPeriod(
            index=index,
            block_number=block_number,
            record_name=name,
            record_bytes=record_bytes,
            file_hash=sha384(record_bytes),
            metadata_hash=v6_metadata_hash(config.hapi_version, start_hash, running, block_number),
            start_running_hash=start_hash,
            end_running_hash=running,
            consensus_start_ns=items[0].facts.consensus_ns,
            consensus_end_ns=items[-1].facts.consensus_ns,
            item_count=len(items),
            sidecars=sidecars,
        )

    def _upload(self, period: GeneratedPeriod, objects: dict[str, bytes]) -> None:
        """Every node's copies (V6: its own gzip headers, upload time and name) and, for the nodes
        that sign the period, its own signature."""
        signature_name = period.record_name.signature()
        signers = self.config.signers_at(period.index)
        for node in self.nodes:
            for file_name, data in self._copies(period, node):
                objects[node_object_path(self.config, node, file_name)] = data
            if signers is not None and node.node_id not in signers:
                continue
            key = self.node_keys[(node.node_id, self.generations[node.node_id])]
            objects[node_object_path(self.config, node, signature_name)] = signed_signature_file(
                key, period.file_hash, period.metadata_hash, version=period.version
            )

    def _copies(self, period: GeneratedPeriod, node: NodeInfo) -> list[tuple[StreamFileName, bytes]]:
        if period.version != 6:
            return [(period.record_name, period.record_bytes)]
        if self._deflated is None or self._deflated[0] != period.index:
            compressed = [(period.record_name, deflate(period.record_bytes))]
            compressed += [(sidecar.name, deflate(sidecar.data)) for sidecar in period.sidecars]
            self._deflated = (period.index, compressed)
        upload_second = (period.consensus_start_ns + self.config.period_ns) // NS_PER_SECOND
        return [
            (name, gzip_member(deflated, mtime=upload_second + node.node_id, file_name=_inner_name(name)))
            for name, deflated in self._deflated[1]
        ]


def _truncated(config: GeneratorConfig, periods: int) -> GeneratorConfig:
    """``config`` as if it had asked for its first ``periods`` periods only."""
    if periods == config.periods:
        return config
    eras = None
    if config.eras is not None:
        left, kept = periods, []
        for version, count in config.eras:
            if left > 0:
                kept.append((version, min(count, left)))
                left -= count
        eras = tuple(kept)
    duplicate = config.duplicate_block_at
    if duplicate is not None and duplicate - config.start_block + 1 >= periods:
        duplicate = None
    return replace(
        config,
        periods=periods,
        eras=eras,
        duplicate_block_at=duplicate,
        stake_updates=tuple((p, s) for p, s in config.stake_update_table if p < periods),
        signers=tuple((p, n) for p, n in config.signer_table if p < periods),
    )


def _running_hash(start: bytes, items: list[GeneratedItem]) -> bytes:
    return running_hash(start, ((item.record_bytes, item.transaction_bytes) for item in items))


def _without_sidecars(item: GeneratedItem) -> GeneratedItem:
    """The item as a file before V6 holds it: no sidecar records, none promised."""
    if not item.sidecar_records:
        return item
    return replace(item, sidecar_records=(), facts=replace(item.facts, sidecar_types=()))


def _inner_name(name: StreamFileName) -> str:
    """The gzip ``FNAME`` nodes write: the file name without ``.gz``."""
    return name.name.removesuffix(".gz")
