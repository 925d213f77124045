"""``write_stream``: a generated stream on disk, in the bucket layout, with its book, keys and truth.

::

    OUT/<layout folders>/...           every node's record, signature and sidecar files
    OUT/<network>/block/...            after a cutover, every block file (``.blk.zstd``)
    OUT/address-book.bin               the bootstrap NodeAddressBook
    OUT/address-books/from-block-N.bin every book, from the first block it is in force for
    OUT/keys/node-0.0.3.pem            node private keys (PKCS#8), ``.pub.pem`` public;
                                       a rotated key is ``node-0.0.3-gen1.pem``
    OUT/keys/council-0.pem             Ed25519 council keys, same naming
    OUT/ground-truth.json
    OUT/genesis-balances.json          the hbar balances before the first block, as a balance
                                       snapshot (``derived.snapshot``): load it so that derived
                                       balances start from the generated genesis, not from zero
    OUT/ledger-id-publication.bin      a stream with native blocks: the ``SignedTransaction``
                                       publishing the TSS ledger id and roster (block 0's first)

Existing files are overwritten; nothing else in OUT is removed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from hedera_history.errors import GeneratorError
from hedera_history.gen.config_and_output import (
    LEDGER_PUBLICATION_FILE,
    GeneratedStream,
    GeneratedUnit,
    GeneratorConfig,
    NodeInfo,
    StreamKeys,
    address_book_file,
)
from hedera_history.gen.keys import private_pem, public_pem
from hedera_history.gen.stream import StreamBuilder
from hedera_history.gen.truth import COMPACT, Section, TruthSpill

GROUND_TRUTH_FILE = "ground-truth.json"
GENESIS_BALANCES_FILE = "genesis-balances.json"
ADDRESS_BOOK_FILE = "address-book.bin"
KEYS_FOLDER = "keys"
_PRETTY_LIMIT = 20_000
"""Up to this many transactions the truth file is indented for reading; above, compact."""


def write_stream(stream: GeneratedStream, out_dir: Path | str) -> None:
    out = Path(out_dir)
    try:
        for relative, data in stream.objects.items():
            _write(out / relative, data)
    except OSError as e:
        raise GeneratorError(f"cannot write the generated stream: {e}", file=str(out)) from e
    write_stream_support(stream, out)


def generate_into(
    config: GeneratorConfig, out_dir: Path | str, on_period: Callable[[GeneratedUnit], None] | None = None
) -> tuple[GeneratedStream, int]:
    """Generate the stream ``config`` describes straight into ``out_dir``, byte for byte what
    ``write_stream(generate_stream(config), out_dir)`` writes, in memory flat in the stream's length:
    each period's files are written as it is generated and dropped, and the truth's transactions
    and block balances wait in temporary files. Returns the stream, which holds no period and no
    file, its truth none of the spilled parts (its ``counts`` are whole), and how many node files
    were written."""
    out = Path(out_dir)
    with TruthSpill() as spill:
        builder = StreamBuilder(config, retain=False, spill=spill)
        files = 0
        try:
            for _ in range(config.periods):
                period, uploaded = builder.next_period()
                for relative, data in uploaded.items():
                    _write(out / relative, data)
                files += len(uploaded)
                if on_period is not None:
                    on_period(period)
        except OSError as e:
            raise GeneratorError(f"cannot write the generated stream: {e}", file=str(out)) from e
        stream = builder.stream()
        write_stream_support(stream, out, builder.spilled_truth())
    return stream, files


def write_stream_support(
    stream: GeneratedStream, out_dir: Path | str, spilled: Mapping[Section, Iterator[str]] | None = None
) -> None:
    """Everything ``write_stream`` writes but the nodes' files: books, keys, truth, genesis balances.
    ``spilled``: the parts of the truth that were spilled out of ``stream.truth``."""
    out = Path(out_dir)
    try:
        write_book_and_keys(stream.address_book, stream.nodes, stream.keys, out)
        for epoch in stream.address_books:
            _write(out / address_book_file(epoch), epoch.book)
        if stream.ledger_publication is not None:
            _write(out / LEDGER_PUBLICATION_FILE, stream.ledger_publication)
        _write_truth(stream.truth, spilled or {}, out / GROUND_TRUTH_FILE)
        _write(out / GENESIS_BALANCES_FILE, json.dumps(genesis_snapshot(stream), indent=1).encode() + b"\n")
    except OSError as e:
        raise GeneratorError(f"cannot write the generated stream: {e}", file=str(out)) from e


def _write_truth(truth: dict[str, Any], spilled: Mapping[Section, Iterator[str]], path: Path) -> None:
    """The truth document, indented up to ``_PRETTY_LIMIT`` transactions (spilled parts read back:
    they are small then), compact above, with the spilled parts streamed into their places."""
    if truth["counts"]["transactions"] <= _PRETTY_LIMIT:
        whole = _with_sections(truth, {where: json.loads("".join(pieces)) for where, pieces in spilled.items()})
        _write(path, json.dumps(whole, indent=1).encode() + b"\n")
        return
    marks = {where: f"\u0000{index}\u0000" for index, where in enumerate(spilled)}
    text = json.dumps(_with_sections(truth, marks), separators=COMPACT)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for where, mark in sorted(marks.items(), key=lambda entry: text.index(json.dumps(entry[1]))):
            before, text = text.split(json.dumps(mark), 1)
            out.write(before)
            out.writelines(spilled[where])
        out.write(text)
        out.write("\n")


def _with_sections(truth: dict[str, Any], values: Mapping[Section, Any]) -> dict[str, Any]:
    """``truth`` with the value at each section's keys replaced (copying only the dicts on the way)."""
    whole = dict(truth)
    for where, value in values.items():
        parent = whole
        for key in where[:-1]:
            parent[key] = dict(parent[key])
            parent = parent[key]
        parent[where[-1]] = value
    return whole


def write_book_and_keys(
    bootstrap_book: bytes, nodes: Sequence[NodeInfo], keys: StreamKeys, out_dir: Path | str
) -> None:
    """The bootstrap book (``address-book.bin``) and every node and council key, under ``out_dir``:
    what a reader needs before the first block (a live network writes them before it starts)."""
    out = Path(out_dir)
    accounts = {node.node_id: node.account for node in nodes}
    try:
        _write(out / ADDRESS_BOOK_FILE, bootstrap_book)
        for (node_id, generation), key in sorted(keys.node_keys.items()):
            suffix = f"-gen{generation}" if generation else ""
            _write_key(out / KEYS_FOLDER, f"node-{accounts[node_id]}{suffix}", key)
        for index, council_key in enumerate(keys.council):
            _write_key(out / KEYS_FOLDER, f"council-{index}", council_key)
    except OSError as e:
        raise GeneratorError(f"cannot write the address book and keys: {e}", file=str(out)) from e


def genesis_snapshot(stream: GeneratedStream) -> dict[str, Any]:
    """The generated genesis hbar balances as a snapshot just before the first block's first item;
    a stream with tokens adds the genesis token balances and every genesis account's key
    (Ed25519, hex), which the balances are loaded without."""
    truth = stream.truth
    first = min((block["consensus_start_ns"] for block in truth["blocks"]), default=stream.config.start_time_ns)
    snapshot = {"consensus_ns": min(first, stream.config.start_time_ns) - 1, "balances": truth["balances"]["genesis"]}
    token_state = truth.get("token_state")
    if token_state is not None:
        snapshot["token_balances"] = token_state["balances"]["genesis"]
        genesis = truth["balances"]["genesis"]
        snapshot["keys"] = {a: states[0]["key"] for a, states in token_state["account_keys"].items() if a in genesis}
    return snapshot


def _write_key(folder: Path, stem: str, key: rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey) -> None:
    _write(folder / f"{stem}.pem", private_pem(key))
    _write(folder / f"{stem}.pub.pem", public_pem(key))


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
