"""The bundle's bytes: canonical protobuf in, canonical protobuf or JSON out.

One proof has one encoding: deterministic serialisation (fields in number order, defaults not
written, no unknown fields). :func:`decode_bundle` re-encodes what it parsed, without the fields
it does not know, and refuses bytes that differ, so no byte of a proof can change without the
verifier seeing it. JSON (``json_format``, bytes as base64) is a rendering for people and tools;
decoding it gives the same bundle.
"""

from __future__ import annotations

import json

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from hedera_history.errors import ProofFormatError
from hedera_history.proto_gen.proof_pb2 import ProofBundle

FORMAT_VERSION = 1


def encode_bundle(bundle: ProofBundle) -> bytes:
    """The canonical bytes of ``bundle``."""
    data: bytes = bundle.SerializeToString(deterministic=True)
    return data


def decode_bundle(data: bytes) -> ProofBundle:
    """A bundle from its canonical bytes or its JSON rendering; ProofFormatError otherwise."""
    if data[:1] in (b"{", b" ", b"\n", b"\t", b"\r"):
        return bundle_from_json(data)
    bundle = ProofBundle()
    try:
        bundle.ParseFromString(data)
    except DecodeError as e:
        raise ProofFormatError(f"not a proof bundle: {e}") from e
    known = ProofBundle()
    known.CopyFrom(bundle)
    # Fields this version does not know survive a re-encoding: drop them before comparing, or a
    # flipped tag could turn a field into an unknown one (a transaction subject into an empty
    # block subject) and still read as canonical.
    known.DiscardUnknownFields()
    if encode_bundle(known) != data:
        raise ProofFormatError(
            "proof bundle is not in its canonical encoding, or has fields this version does not know"
        )
    _check_version(bundle)
    return bundle


def bundle_to_json(bundle: ProofBundle) -> str:
    rendered: str = json_format.MessageToJson(bundle, preserving_proto_field_name=True, indent=2)
    return rendered


def bundle_from_json(data: bytes | str) -> ProofBundle:
    try:
        bundle = json_format.Parse(data, ProofBundle())
    except (json_format.ParseError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ProofFormatError(f"not a proof bundle in JSON: {e}") from e
    _check_version(bundle)
    return bundle


def _check_version(bundle: ProofBundle) -> None:
    if bundle.format_version != FORMAT_VERSION:
        raise ProofFormatError(f"proof format version: expected {FORMAT_VERSION} but got {bundle.format_version}")
