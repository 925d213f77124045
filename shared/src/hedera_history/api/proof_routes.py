"""``GET /api/v1/transactions/{transactionId}/stateproof`` (the reference mirror node's former
State Proof Alpha route and its ``nonce`` and ``scheduled`` parameters, plus ``sidecars``) and
``GET /api/v1/blocks/{number}/proof``: the bundle's JSON rendering by default, its canonical
protobuf bytes for ``Accept: application/x-protobuf`` or ``?format=protobuf``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.parse import parse_int
from hedera_history.api.proofs import ProofConfig, block_proof, transaction_proof
from hedera_history.api.query import Query, only, single
from hedera_history.api.transaction_filters import last_value
from hedera_history.store.reader import HistoryReader

PROTOBUF = "application/x-protobuf"
_PROTOBUF_TYPES = frozenset({PROTOBUF, "application/protobuf", "application/vnd.google.protobuf"})
_TRANSACTION_PROOF = re.compile(r"^/api/v1/transactions/([^/]+)/stateproof/?$")
_BLOCK_PROOF = re.compile(r"^/api/v1/blocks/([^/]+)/proof/?$")
PROOF_PATHS = (_TRANSACTION_PROOF, _BLOCK_PROOF)


@dataclass(frozen=True, slots=True)
class ProofBody:
    """A proof answer: JSON-serialisable ``body`` or the canonical bytes with their media type."""

    body: Any
    media_type: str


def is_proof_path(path: str) -> bool:
    return any(pattern.fullmatch(path) for pattern in PROOF_PATHS)


def proof_route(
    get_reader: Callable[[], HistoryReader],
    get_proofs: ProofConfig,
    path: str,
    query: Query,
    accept: str | None,
) -> ProofBody | None:
    """The answer for a proof path, None when ``path`` is not one."""
    if match := _TRANSACTION_PROOF.fullmatch(path):
        only(query, {"nonce", "scheduled", "sidecars", "format"})
        protobuf = wants_protobuf(single(query, "format"), accept)
        nonce_text = last_value(query, "nonce")  # nonce and scheduled: the last given, as the reference
        data = transaction_proof(
            get_reader,
            get_proofs,
            match[1],
            nonce=0 if nonce_text is None else parse_int(nonce_text, "nonce", maximum=2**31 - 1),
            scheduled=_flag(last_value(query, "scheduled"), "scheduled"),
            sidecars=_flag(single(query, "sidecars"), "sidecars"),
        )
    elif match := _BLOCK_PROOF.fullmatch(path):
        only(query, {"format"})
        protobuf = wants_protobuf(single(query, "format"), accept)
        data = block_proof(get_reader, get_proofs, parse_int(match[1], "number"))
    else:
        return None
    return ProofBody(data, PROTOBUF) if protobuf else ProofBody(proof_json(data), "application/json")


def proof_json(data: bytes) -> Any:
    """The bundle's JSON rendering (protobuf's JSON mapping: bytes base64, 64-bit integers strings)."""
    from hedera_history.proofs.codec import bundle_to_json, decode_bundle  # noqa: PLC0415

    return json.loads(bundle_to_json(decode_bundle(data)))


def _flag(value: str | None, name: str) -> bool:
    if value not in (None, "true", "false"):
        raise InvalidParamsError(f"{name} must be true or false")
    return value == "true"


def wants_protobuf(format_param: str | None, accept: str | None) -> bool:
    """``format`` decides when given; else ``Accept``: protobuf when it names a protobuf type with a
    weight above zero and no higher weight on ``application/json`` (a wildcard counts less than
    either)."""
    if format_param is not None:
        if format_param not in ("json", "protobuf"):
            raise InvalidParamsError("format must be json or protobuf")
        return format_param == "protobuf"
    protobuf_weight = json_weight = 0.0
    for media_range in (accept or "").split(","):
        kind, *params = (part.strip() for part in media_range.split(";"))
        weight = _weight(params)
        if kind.lower() in _PROTOBUF_TYPES:
            protobuf_weight = max(protobuf_weight, weight)
        elif kind.lower() == "application/json":
            json_weight = max(json_weight, weight)
    return protobuf_weight > 0 and protobuf_weight > json_weight


def _weight(params: list[str]) -> float:
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                return min(max(float(value.strip()), 0.0), 1.0)
            except ValueError:
                return 0.0
    return 1.0
