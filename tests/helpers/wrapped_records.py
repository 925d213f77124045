"""The real mainnet record files that ``blocks/wrapped-mainnet`` wraps, and the wrapped blocks'
companions (books, block numbers), for comparing a wrapped block with the record file it wraps.

The originals sit in the block node's layout (one folder per period: the ``.rcd``, its sidecar and
``node_<account>.rcd_sig``); :func:`bucket_layout` links them into the record stream's bucket layout
(``recordstreams/record<account>/``) in a scratch folder, as ``load`` and ``verify_stream`` read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BLOCKS = "blocks/wrapped-mainnet"


@dataclass(frozen=True)
class WrappedExample:
    version: int
    block: str
    """The wrapped block file, below the data folder."""
    originals: str
    """The period folder of the original files, below the data folder."""
    book: str
    """The book every original signature verifies with (``blocks/README.md``), below the data folder."""
    number: int
    """The block number the wrapped block (and the mirror node) gives the record file."""


WRAPPED_EXAMPLES = (
    WrappedExample(
        2,
        f"{BLOCKS}/v2-block.blk.gz",
        f"{BLOCKS}/record-files/example-v2/2019-09-13T21_53_51.396440Z",
        "addressbook/main-resources-mainnet.bin",
        0,
    ),
    WrappedExample(
        5,
        f"{BLOCKS}/v5-block.blk.gz",
        f"{BLOCKS}/record-files/example-v5/2022-01-01T00_00_00.252365821Z",
        f"{BLOCKS}/record-files/example-v5/2022-01-01T00_00_00.252365821Z/address_book.bin",
        26591040,
    ),
    WrappedExample(
        6,
        f"{BLOCKS}/v6-block.blk.gz",
        f"{BLOCKS}/record-files/example-v6/2025-07-23T20_37_42.076472454Z",
        f"{BLOCKS}/record-files/example-v6/2025-07-23T20_37_42.076472454Z/address_book.bin",
        82297471,
    ),
)


def bucket_layout(originals: Path, out: Path) -> Path:
    """``originals`` (one period folder) linked into ``out/recordstreams/record<account>/``; ``out``."""
    records = [p for p in originals.glob("*.rcd") if "_" not in p.name.rsplit("Z", 1)[-1]]
    sidecars = sorted(originals.glob("*Z_[0-9][0-9].rcd"))
    for signature in sorted(originals.glob("node_*.rcd_sig")):
        account = signature.name.removeprefix("node_").removesuffix(".rcd_sig")
        node = out / "recordstreams" / f"record{account}"
        (node / "sidecar").mkdir(parents=True, exist_ok=True)
        for record in records:
            (node / record.name).symlink_to(record)
            (node / f"{record.stem}.rcd_sig").symlink_to(signature)
        for sidecar in sidecars:
            (node / "sidecar" / sidecar.name).symlink_to(sidecar)
    return out
