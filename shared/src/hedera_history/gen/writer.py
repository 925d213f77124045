"""``write_stream``: a generated stream on disk, in the bucket layout, with its book, keys and truth.

::

    OUT/<layout folders>/...           every node's record, signature and sidecar files
    OUT/address-book.bin               the bootstrap NodeAddressBook
    OUT/address-books/from-block-N.bin every book, from the first block it is in force for
    OUT/keys/node-0.0.3.pem            node private keys (PKCS#8), ``.pub.pem`` public;
                                       a rotated key is ``node-0.0.3-gen1.pem``
    OUT/keys/council-0.pem             Ed25519 council keys, same naming
    OUT/ground-truth.json
    OUT/genesis-balances.json          the hbar balances before the first block, as a balance
                                       snapshot (``derived.snapshot``): load it so that derived
                                       balances start from the generated genesis, not from zero

Existing files are overwritten; nothing else in OUT is removed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from hedera_history.errors import GeneratorError
from hedera_history.gen.config_and_output import GeneratedStream, NodeInfo, StreamKeys, address_book_file
from hedera_history.gen.keys import private_pem, public_pem

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


def write_stream_support(stream: GeneratedStream, out_dir: Path | str) -> None:
    """Everything ``write_stream`` writes but the nodes' files: books, keys, truth, genesis balances."""
    out = Path(out_dir)
    try:
        write_book_and_keys(stream.address_book, stream.nodes, stream.keys, out)
        for epoch in stream.address_books:
            _write(out / address_book_file(epoch), epoch.book)
        pretty = len(stream.truth.get("transactions", ())) <= _PRETTY_LIMIT
        text = json.dumps(stream.truth, indent=1 if pretty else None, separators=None if pretty else (",", ":"))
        _write(out / GROUND_TRUTH_FILE, text.encode() + b"\n")
        _write(out / GENESIS_BALANCES_FILE, json.dumps(genesis_snapshot(stream), indent=1).encode() + b"\n")
    except OSError as e:
        raise GeneratorError(f"cannot write the generated stream: {e}", file=str(out)) from e


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
    """The generated genesis hbar balances as a snapshot just before the first block's first item."""
    truth = stream.truth
    first = min((block["consensus_start_ns"] for block in truth["blocks"]), default=stream.config.start_time_ns)
    return {"consensus_ns": min(first, stream.config.start_time_ns) - 1, "balances": truth["balances"]["genesis"]}


def _write_key(folder: Path, stem: str, key: rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey) -> None:
    _write(folder / f"{stem}.pem", private_pem(key))
    _write(folder / f"{stem}.pub.pem", public_pem(key))


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
