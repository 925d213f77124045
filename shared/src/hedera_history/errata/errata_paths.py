"""Where errata files and their node signatures live in the bucket, beside the record streams.

- ``ACCOUNT`` layout: the errata ``<prefix>recordstreams/errata/<ts>.errata``; node 0.0.3's
  signature ``<prefix>recordstreams/record0.0.3/errata/<ts>.errata_sig``.
- ``NODE_ID`` layout: the errata ``<prefix><network>/errata/<ts>.errata``; node 0's signature
  ``<prefix><network>/<shard>/0/record/errata/<ts>.errata_sig``.

``<ts>`` is the errata's consensus time written as stream file names write times. None of these
paths parses as a record stream file (``formats.stream_paths``), so stream code ignores them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hedera_history.errors import FileNameError
from hedera_history.formats.names import format_timestamp, parse_timestamp
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity

ERRATA_FOLDER = "errata"
ERRATA_SUFFIX = ".errata"
SIGNATURE_SUFFIX = ".errata_sig"

_TS = r"(?P<ts>\d{4}-\d{2}-\d{2}T\d{2}_\d{2}_\d{2}(?:\.\d{1,9})?Z)"
_ACCOUNT_FILE = re.compile(r"(?P<prefix>(?:.*/)?)recordstreams/errata/" + _TS + r"\.errata")
_ACCOUNT_SIGNATURE = re.compile(
    r"(?P<prefix>(?:.*/)?)recordstreams/record(?P<account>\d+\.\d+\.\d+)/errata/" + _TS + r"\.errata_sig"
)
_NODE_ID_FILE = re.compile(r"(?P<prefix>(?:.*/)?)(?P<network>[^/]+)/errata/" + _TS + r"\.errata")
_NODE_ID_SIGNATURE = re.compile(
    r"(?P<prefix>(?:.*/)?)(?P<network>[^/]+)/(?P<shard>\d+)/(?P<node_id>\d+)/record/errata/" + _TS + r"\.errata_sig"
)


@dataclass(frozen=True, slots=True)
class ErrataPath:
    """An errata file's or signature's path, taken apart."""

    layout: BucketLayout
    prefix: str
    time_text: str
    """The timestamp part as written."""
    consensus_ns: int
    node: NodeIdentity | None = None
    """Set for a node's signature file."""
    network: str | None = None
    shard: int | None = None

    @property
    def is_signature(self) -> bool:
        return self.node is not None

    @property
    def errata_file(self) -> str:
        """The path of the errata file this path belongs to."""
        if self.layout is BucketLayout.ACCOUNT:
            return f"{self.prefix}recordstreams/{ERRATA_FOLDER}/{self.time_text}{ERRATA_SUFFIX}"
        return f"{self.prefix}{self.network}/{ERRATA_FOLDER}/{self.time_text}{ERRATA_SUFFIX}"

    def signature_path(self, node: NodeIdentity, shard: int | None = None) -> str:
        """The path of ``node``'s signature for this errata."""
        name = f"{self.time_text}{SIGNATURE_SUFFIX}"
        if self.layout is BucketLayout.ACCOUNT:
            if node.account is None:
                raise FileNameError("the account layout names nodes by account", file=name)
            return f"{self.prefix}recordstreams/record{node.account}/{ERRATA_FOLDER}/{name}"
        if node.node_id is None:
            raise FileNameError("the node-id layout names nodes by node id", file=name)
        return (
            f"{self.prefix}{self.network}/{shard if shard is not None else self.shard or 0}/"
            f"{node.node_id}/record/{ERRATA_FOLDER}/{name}"
        )


def errata_path(layout: BucketLayout, consensus_ns: int, *, prefix: str = "", network: str = "") -> ErrataPath:
    """The errata file of ``consensus_ns`` in ``layout`` (``network`` for the node-id layout)."""
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    if layout is BucketLayout.NODE_ID and (not network or "/" in network):
        raise FileNameError(f"the node-id layout needs a network name without '/', got {network!r}")
    return ErrataPath(
        layout,
        prefix,
        format_timestamp(consensus_ns),
        consensus_ns,
        network=network if layout is BucketLayout.NODE_ID else None,
        shard=0 if layout is BucketLayout.NODE_ID else None,
    )


def parse_errata_path(path: str) -> ErrataPath:
    """Take an errata or errata signature path apart; FileNameError when it is neither."""
    match = _ACCOUNT_SIGNATURE.fullmatch(path)
    if match is not None:
        return _parsed(match, BucketLayout.ACCOUNT, node=NodeIdentity(account=match["account"]))
    match = _ACCOUNT_FILE.fullmatch(path)
    if match is not None:
        return _parsed(match, BucketLayout.ACCOUNT)
    match = _NODE_ID_SIGNATURE.fullmatch(path)
    if match is not None:
        return _parsed(
            match,
            BucketLayout.NODE_ID,
            node=NodeIdentity(node_id=int(match["node_id"])),
            network=match["network"],
            shard=int(match["shard"]),
        )
    match = _NODE_ID_FILE.fullmatch(path)
    if match is not None:
        return _parsed(match, BucketLayout.NODE_ID, network=match["network"], shard=0)
    raise FileNameError(
        "not an errata path: expected .../recordstreams/errata/<time>.errata, "
        ".../recordstreams/record<account>/errata/<time>.errata_sig, <network>/errata/<time>.errata "
        "or <network>/<shard>/<nodeId>/record/errata/<time>.errata_sig",
        file=path,
    )


def is_errata_path(path: str) -> bool:
    """True for an errata file or an errata signature file (what the ingest hands to errata)."""
    try:
        parse_errata_path(path)
    except FileNameError:
        return False
    return True


def _parsed(
    match: re.Match[str],
    layout: BucketLayout,
    *,
    node: NodeIdentity | None = None,
    network: str | None = None,
    shard: int | None = None,
) -> ErrataPath:
    text = match["ts"]
    return ErrataPath(layout, match["prefix"], text, parse_timestamp(text), node, network, shard)
