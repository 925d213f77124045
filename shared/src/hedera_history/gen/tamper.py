"""Hooks for the tests of later parts: damage one node's copy, drop signatures, keep some nodes.

Each returns a new :class:`GeneratedStream` with changed ``objects``; the ground truth is left as
the honest stream's, which is what verification must still arrive at (or refuse to).
"""

from __future__ import annotations

import gzip
import struct
from collections.abc import Collection
from dataclasses import replace
from enum import Enum

from hedera_history import hapi
from hedera_history.errors import GeneratorError
from hedera_history.formats.compression import deflate, gzip_member
from hedera_history.formats.dispatch import parse_record_file, parse_signature_file
from hedera_history.formats.hashing import sha384
from hedera_history.formats.rebuild import file_hash_of, rebuild_file_bytes
from hedera_history.formats.signature import write_signature_file
from hedera_history.gen.config_and_output import GeneratedStream, NodeRef
from hedera_history.gen.signing import signed_signature_file


class TamperTarget(Enum):
    RECORD = "record"
    """Change one item's record (a bit of its transaction hash): file hash and running hash break."""
    SIGNATURE = "signature"
    """Flip a bit of the file signature: it no longer verifies."""
    SIDECAR = "sidecar"
    """Change one sidecar record: the sidecar hash no longer matches its ``SidecarMetadata``."""


def tamper(
    stream: GeneratedStream,
    node: NodeRef,
    period: int,
    target: TamperTarget = TamperTarget.RECORD,
    *,
    resign: bool = False,
) -> GeneratedStream:
    """Damage node ``node``'s copy of ``period`` (an index, 0 = first block).

    With ``resign`` and a damaged record, the node also signs the damaged file with its valid key:
    its signature verifies but names a hash no other node signed (a minority fork).
    """
    info = stream.node(node)
    if not 0 <= period < len(stream.periods):
        raise GeneratorError(f"no period {period}: the stream has {len(stream.periods)}")
    objects = dict(stream.objects)
    block = stream.periods[period]
    if target is TamperTarget.RECORD:
        path = stream.record_path(info.node_id, period)
        if block.version == 6:
            damaged = _damage_record_file(_gunzip(objects[path], path), path)
            objects[path] = _regzip(objects[path], damaged)
            damaged_hash = sha384(damaged)
        else:
            damaged, damaged_hash = _damage_legacy_record_file(objects[path], path)
            objects[path] = damaged
        if resign:
            key = stream.signing_key(info.node_id, block.block_number)
            objects[stream.signature_path(info.node_id, period)] = signed_signature_file(
                key, damaged_hash, block.metadata_hash, version=block.version
            )
    elif target is TamperTarget.SIGNATURE:
        path = stream.signature_path(info.node_id, period)
        if path not in objects:
            raise GeneratorError(f"node did not sign period {period}", node=info.account)
        objects[path] = _damage_signature_file(objects[path], path)
    else:
        paths = stream.sidecar_paths(info.node_id, period)
        if not paths:
            raise GeneratorError(f"period {period} has no sidecar file to tamper with", node=info.account)
        objects[paths[0]] = _regzip(objects[paths[0]], _damage_sidecar_file(_gunzip(objects[paths[0]], paths[0])))
    return replace(stream, objects=objects)


def drop_signatures(
    stream: GeneratedStream, nodes: Collection[NodeRef] | None = None, periods: Collection[int] | None = None
) -> GeneratedStream:
    """Remove the signature files of ``nodes`` (default all) for ``periods`` (default all)."""
    chosen_nodes = stream.nodes if nodes is None else tuple(stream.node(n) for n in nodes)
    chosen_periods = range(len(stream.periods)) if periods is None else periods
    dropped = {stream.signature_path(n.node_id, p) for n in chosen_nodes for p in chosen_periods}
    return replace(stream, objects={k: v for k, v in stream.objects.items() if k not in dropped})


def only_nodes(stream: GeneratedStream, nodes: Collection[NodeRef]) -> GeneratedStream:
    """Keep only the files of ``nodes``, as if the others never uploaded."""
    kept = {
        path
        for node in nodes
        for period in range(len(stream.periods))
        for path in stream.period_paths(stream.node(node).node_id, period)
    }
    return replace(stream, objects={k: v for k, v in stream.objects.items() if k in kept})


def _gunzip(data: bytes, path: str) -> bytes:
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as e:
        raise GeneratorError(f"not a gzip file: {e}", file=path) from e


def _regzip(original: bytes, data: bytes) -> bytes:
    """Compress ``data`` under the same header fields the node wrote for ``original``."""
    (mtime,) = struct.unpack("<I", original[4:8])
    name_end = original.index(b"\x00", 10)
    return gzip_member(deflate(data), mtime=mtime, file_name=original[10:name_end].decode("latin-1"))


def _damage_record_file(data: bytes, path: str) -> bytes:
    record_file = hapi.RecordStreamFile.FromString(data[4:])
    if not record_file.record_stream_items:
        raise GeneratorError("record file has no items to tamper with", file=path)
    record = record_file.record_stream_items[0].record
    record.transactionHash = bytes([record.transactionHash[0] ^ 0x01]) + record.transactionHash[1:]
    serialised: bytes = record_file.SerializeToString()
    return data[:4] + serialised


def _damage_legacy_record_file(data: bytes, path: str) -> tuple[bytes, bytes]:
    """A V1, V2 or V5 file with the first item's transaction hash changed (the stated running
    hashes and previous file hash kept), and its new file hash."""
    name = path.rsplit("/", 1)[-1]
    parsed = parse_record_file(data, name)
    record = hapi.TransactionRecord.FromString(parsed.items[0].record_bytes)
    record.transactionHash = bytes([record.transactionHash[0] ^ 0x01]) + record.transactionHash[1:]
    items = [replace(parsed.items[0], record_bytes=record.SerializeToString()), *parsed.items[1:]]
    damaged = rebuild_file_bytes(replace(parsed, items=tuple(items)))
    if damaged is None:
        raise GeneratorError("record file cannot be rewritten", file=path)
    return damaged, file_hash_of(parsed.version, damaged)


def _damage_signature_file(data: bytes, path: str) -> bytes:
    signature = parse_signature_file(data, path.rsplit("/", 1)[-1])
    flipped = bytes([signature.file_signature[0] ^ 0x01]) + signature.file_signature[1:]
    return write_signature_file(
        signature.version, signature.file_hash, flipped, signature.metadata_hash, signature.metadata_signature
    )


def _damage_sidecar_file(data: bytes) -> bytes:
    sidecar = hapi.SidecarFile.FromString(data)
    first = sidecar.sidecar_records[0]
    first.migration = not first.migration
    serialised: bytes = sidecar.SerializeToString()
    return serialised
