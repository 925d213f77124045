"""HTTP headers a browser or a CDN in front of the query function reads: CORS as the reference
mirror node sends it (any origin), and ``ETag`` / ``Cache-Control`` so repeats cost nothing.

A complete block never changes (no reorganisation on Hedera, errata correct transactions, not
block headers), so ``/api/v1/blocks/{number}`` and its proof ``/api/v1/blocks/{number}/proof`` are
cached for a year (a proof's JSON and protobuf forms share a URL: ``Vary: Accept``). Other answers can grow (a
listing, the latest block) or be corrected by an errata: they are cached for a second, as the
reference's default. Every 200 carries a strong ``ETag`` of its body; a matching
``If-None-Match`` is answered 304 without the body.
"""

from __future__ import annotations

import hashlib
import re

from hedera_history.api.proof_routes import is_proof_path

CORS_HEADERS = {"Access-Control-Allow-Origin": "*"}
PREFLIGHT_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET,HEAD,POST,OPTIONS",
    "Access-Control-Max-Age": "86400",
}
IMMUTABLE = "public, max-age=31536000, immutable"
SHORT = "public, max-age=1"
_IMMUTABLE_PATHS = (re.compile(r"^/api/v1/blocks/\d+$"), re.compile(r"^/api/v1/blocks/\d+/proof$"))


def preflight_headers(requested_headers: str | None) -> dict[str, str]:
    """An ``OPTIONS`` answer: the headers the browser asked to send are allowed (as the reference's)."""
    headers = dict(PREFLIGHT_HEADERS)
    if requested_headers:
        headers["Access-Control-Allow-Headers"] = requested_headers
        headers["Vary"] = "Access-Control-Request-Headers"
    return headers


def entity_tag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def cache_control(method: str, path: str, status: int) -> str | None:
    if method not in ("GET", "HEAD") or status != 200:
        return None
    return IMMUTABLE if any(p.fullmatch(path) for p in _IMMUTABLE_PATHS) else SHORT


def varies_on_accept(path: str) -> bool:
    """The answer's form depends on ``Accept`` (proofs: JSON or protobuf)."""
    return is_proof_path(path)


def matches(if_none_match: str | None, tag: str) -> bool:
    """``If-None-Match`` names ``tag`` (or is ``*``); weak tags compare by their value."""
    if not if_none_match:
        return False
    wanted = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
    return "*" in wanted or tag in wanted
