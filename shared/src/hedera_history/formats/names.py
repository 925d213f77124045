"""Stream file names: ``<ts>.rcd[.gz]``, ``<ts>.rcd_sig``, ``<ts>_NN.rcd[.gz]`` (sidecars), and
block file names (``<number>.blk[.gz|.zstd]``, at the end of this module).

``<ts>`` is the consensus time of the period's first transaction in ISO-8601 UTC with ``_`` for
``:``. New names carry nine fraction digits; old ones carry fewer (Java's ``Instant.toString``
drops trailing zero groups, e.g. ``2019-06-05T20_29_32.856974Z``), so parsing accepts zero to
nine digits and keeps the text as written in :attr:`StreamFileName.period_key`: siblings of a
file (its signature, its sidecars) are named from that text, never from a reformatted time.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum

from hedera_history.errors import FileNameError

_NS_PER_SECOND = 1_000_000_000

_TIMESTAMP = r"(?P<ts>(?P<date>\d{4}-\d{2}-\d{2})T(?P<h>\d{2})_(?P<m>\d{2})_(?P<s>\d{2})(?:\.(?P<frac>\d{1,9}))?Z)"
_NAME = re.compile(
    _TIMESTAMP + r"(?:(?P<sig>\.rcd_sig)|_(?P<sidecar>\d{2,})(?P<sc_ext>\.rcd(?:\.gz)?)|(?P<rec_ext>\.rcd(?:\.gz)?))"
)
_TIMESTAMP_ONLY = re.compile(_TIMESTAMP)


class StreamFileKind(Enum):
    RECORD = "record"
    SIGNATURE = "signature"
    SIDECAR = "sidecar"


@dataclass(frozen=True, slots=True)
class StreamFileName:
    """A parsed stream file name; ``str()`` gives the name back exactly."""

    period_key: str
    """The timestamp part as written, shared by a record file, its signature and its sidecars."""
    consensus_ns: int
    kind: StreamFileKind
    sidecar_id: int | None = None
    compressed: bool = False

    @property
    def name(self) -> str:
        if self.kind is StreamFileKind.SIGNATURE:
            return f"{self.period_key}.rcd_sig"
        gz = ".gz" if self.compressed else ""
        if self.kind is StreamFileKind.SIDECAR:
            return f"{self.period_key}_{self.sidecar_id:02d}.rcd{gz}"
        return f"{self.period_key}.rcd{gz}"

    def __str__(self) -> str:
        return self.name

    def signature(self) -> StreamFileName:
        """The name of this period's signature file."""
        return StreamFileName(self.period_key, self.consensus_ns, StreamFileKind.SIGNATURE)

    def record(self, *, compressed: bool) -> StreamFileName:
        """The name of this period's record file (V6 files are compressed, earlier ones not)."""
        return StreamFileName(self.period_key, self.consensus_ns, StreamFileKind.RECORD, compressed=compressed)

    def sidecar(self, sidecar_id: int, *, compressed: bool = True) -> StreamFileName:
        """The name of this period's sidecar file number ``sidecar_id``."""
        if sidecar_id < 1:
            raise FileNameError(f"sidecar id must be at least 1, got {sidecar_id}", file=self.name)
        return StreamFileName(
            self.period_key,
            self.consensus_ns,
            StreamFileKind.SIDECAR,
            sidecar_id=sidecar_id,
            compressed=compressed,
        )


def parse_stream_file_name(name: str) -> StreamFileName:
    """Parse a file name (a path is cut to its last component)."""
    base = name.rsplit("/", 1)[-1]
    match = _NAME.fullmatch(base)
    if match is None:
        raise FileNameError(
            "not a stream file name: expected <time>.rcd, <time>.rcd.gz, <time>.rcd_sig or <time>_NN.rcd.gz "
            "with <time> like 2022-07-13T08_46_11.304284003Z",
            file=name,
        )
    key = match["ts"]
    ns = _timestamp_ns(match, name)
    if match["sig"]:
        return StreamFileName(key, ns, StreamFileKind.SIGNATURE)
    if match["sidecar"]:
        sidecar_id = int(match["sidecar"])
        if sidecar_id < 1:
            raise FileNameError(f"sidecar id must be at least 1, got {sidecar_id}", file=name)
        return StreamFileName(
            key, ns, StreamFileKind.SIDECAR, sidecar_id=sidecar_id, compressed=match["sc_ext"].endswith(".gz")
        )
    return StreamFileName(key, ns, StreamFileKind.RECORD, compressed=match["rec_ext"].endswith(".gz"))


def parse_timestamp(text: str) -> int:
    """``2022-07-13T08_46_11.304284003Z`` -> nanoseconds since the epoch."""
    match = _TIMESTAMP_ONLY.fullmatch(text)
    if match is None:
        raise FileNameError(f"not a stream timestamp: expected YYYY-MM-DDTHH_MM_SS.nnnnnnnnnZ, got {text!r}")
    return _timestamp_ns(match, text)


def timestamp_resolution_ns(text: str) -> int:
    """The nanoseconds one unit of the last fraction digit written stands for: 1 for nine digits,
    1,000 for six (``2019-07-01T14_13_00.317763Z``), 10**9 for none."""
    match = _TIMESTAMP_ONLY.fullmatch(text)
    if match is None:
        raise FileNameError(f"not a stream timestamp: expected YYYY-MM-DDTHH_MM_SS.nnnnnnnnnZ, got {text!r}")
    digits = len(match["frac"] or "")
    return int(10 ** (9 - digits))


def format_timestamp(consensus_ns: int) -> str:
    """Nanoseconds since the epoch -> ``2022-07-13T08_46_11.304284003Z`` (always nine digits)."""
    if consensus_ns < 0:
        raise FileNameError(f"consensus time must not be negative, got {consensus_ns}")
    seconds, nanos = divmod(consensus_ns, _NS_PER_SECOND)
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, ValueError) as e:
        raise FileNameError(f"consensus time out of range: {consensus_ns}") from e
    return f"{moment:%Y-%m-%dT%H_%M_%S}.{nanos:09d}Z"


def format_instant(consensus_ns: int) -> str:
    """Nanoseconds since the epoch as Java's ``Instant.toString`` writes them, ``:`` as ``_``: the
    fraction in groups of three digits, trailing zero groups dropped (``2019-09-13T21_53_51.396440Z``;
    none at all on a whole second). The reference names a wrapped record file so."""
    text = format_timestamp(consensus_ns)
    fraction = text[-10:-1]
    while fraction.endswith("000"):
        fraction = fraction[:-3]
    return f"{text[:-11]}.{fraction}Z" if fraction else f"{text[:-11]}Z"


def record_file_name(consensus_ns: int, *, compressed: bool) -> StreamFileName:
    key = format_timestamp(consensus_ns)
    return StreamFileName(key, consensus_ns, StreamFileKind.RECORD, compressed=compressed)


def signature_file_name(consensus_ns: int) -> StreamFileName:
    return StreamFileName(format_timestamp(consensus_ns), consensus_ns, StreamFileKind.SIGNATURE)


def sidecar_file_name(consensus_ns: int, sidecar_id: int, *, compressed: bool = True) -> StreamFileName:
    return record_file_name(consensus_ns, compressed=compressed).sidecar(sidecar_id, compressed=compressed)


def _timestamp_ns(match: re.Match[str], name: str) -> int:
    year, month, day = (int(part) for part in match["date"].split("-"))
    hours, minutes, seconds = int(match["h"]), int(match["m"]), int(match["s"])
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        raise FileNameError(f"not a calendar date: {match['date']}", file=name)
    if hours > 23 or minutes > 59 or seconds > 59:
        raise FileNameError(f"not a time of day: {hours:02d}:{minutes:02d}:{seconds:02d}", file=name)
    frac = match["frac"] or ""
    nanos = int(frac.ljust(9, "0")) if frac else 0
    epoch_seconds = calendar.timegm((year, month, day, hours, minutes, seconds, 0, 0, 0))
    return epoch_seconds * _NS_PER_SECOND + nanos


# ---- block files (HIP-1056) ----------------------------------------------------------------------
# One file per block: ``<number>.blk`` with ``.gz`` or ``.zstd``. The public buckets keep them under
# ``<network>/block/`` with the 19-digit number split 4/4/4/4/3 into folders and the file name
# (``0000/0000/0000/0000/007.blk.zstd`` is block 7); the block node's own folders name them flat,
# ``0000000000000000007.blk.zstd`` or ``7.blk.gz``. Other names (``v2-block.blk.gz``) carry no number.

BLOCK_NUMBER_DIGITS = 19
_BUCKET_SPLIT = (4, 4, 4, 4, 3)
_BLOCK_NAME = re.compile(r"(?P<stem>[^/]+)\.blk(?:\.(?P<compression>gz|zstd))?")
BUCKET_BLOCK_PATH = re.compile(
    r"(?:.*/)?(?P<a>\d{4})/(?P<b>\d{4})/(?P<c>\d{4})/(?P<d>\d{4})/(?P<e>\d{3})\.blk(?:\.gz|\.zstd)?"
)
"""A block file in the buckets' layout: four folders of 4 digits, then 3 digits, then ``.blk``."""


@dataclass(frozen=True, slots=True)
class BlockFileName:
    """A block file's name: its number when the name (or the bucket folders above it) gives one."""

    name: str
    number: int | None
    compression: str
    """``""``, ``"gz"`` or ``"zstd"``."""


def is_block_file_name(name: str) -> bool:
    return _BLOCK_NAME.fullmatch(name.rsplit("/", 1)[-1]) is not None


def parse_block_file_name(path: str) -> BlockFileName:
    """The number a block file's path gives (bucket folders, a flat number, or none) and its
    compression; FileNameError when it is not ``*.blk``, ``*.blk.gz`` or ``*.blk.zstd``."""
    base = path.rsplit("/", 1)[-1]
    match = _BLOCK_NAME.fullmatch(base)
    if match is None:
        raise FileNameError("not a block file name: expected <number>.blk, .blk.gz or .blk.zstd", file=path)
    compression = match["compression"] or ""
    bucket = BUCKET_BLOCK_PATH.fullmatch(path)
    if bucket is not None:
        return BlockFileName(base, int("".join(bucket.group("a", "b", "c", "d", "e"))), compression)
    stem = match["stem"]
    return BlockFileName(base, int(stem) if stem.isdigit() and stem.isascii() else None, compression)


def block_file_path(number: int, *, compression: str = "zstd", bucket: bool = True) -> str:
    """Block ``number``'s path relative to the block folder: bucket folders (``0000/0000/0000/0000/
    007.blk.zstd``), or flat 19 digits (``0000000000000000007.blk.zstd``)."""
    if not 0 <= number < 10**BLOCK_NUMBER_DIGITS:
        raise FileNameError(f"a block number has at most {BLOCK_NUMBER_DIGITS} digits, got {number}")
    digits = f"{number:0{BLOCK_NUMBER_DIGITS}d}"
    suffix = f".blk.{compression}" if compression else ".blk"
    if not bucket:
        return digits + suffix
    parts, start = [], 0
    for width in _BUCKET_SPLIT:
        parts.append(digits[start : start + width])
        start += width
    return "/".join(parts) + suffix
