"""Block files found under a local directory, in block order, read lazily.

Any file below the directory named ``*.blk``, ``*.blk.gz`` or ``*.blk.zstd`` is a block file: in
the public buckets' layout (``<network>/block/0000/0000/0000/0000/007.blk.zstd``), flat
(``0000000000000000007.blk.zstd``, ``7.blk.gz``), or under any other name. The number comes from
the path (:func:`~hedera_history.formats.names.parse_block_file_name`); a file whose path gives
none is read once here for the number in its header, and one that cannot be read goes last, to be
reported when it is verified.

Each folder holds its own chain: files in one folder (for the bucket layout, the folder above the
four number folders) form one run, verified as a chain of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hedera_history.errors import FormatError, SourceError
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.names import BUCKET_BLOCK_PATH, is_block_file_name, parse_block_file_name

_BUCKET_NUMBER_FOLDERS = 4


@dataclass(frozen=True, slots=True)
class LocalBlock:
    """One block file on disk; a :class:`~hedera_history.verify.blocks.BlockSource`."""

    path: Path
    name: str
    """The path below the directory searched (what reports name)."""
    number: int | None
    """The number the path gives, if it gives one."""
    run: str
    """The folder of its chain, below the directory searched (``""`` for the directory itself)."""

    def read(self) -> bytes:
        try:
            return self.path.read_bytes()
        except OSError as e:
            raise SourceError(f"cannot read: {e}", file=str(self.path)) from e


def find_block_runs(root: Path, *, max_decompressed: int | None = None) -> list[list[LocalBlock]]:
    """Every block file under ``root``, one run per chain folder (by folder name), each run by
    block number (then name)."""
    if not root.is_dir():
        raise SourceError(f"not a directory: {root}", file=str(root))
    base = root.resolve()
    runs: dict[str, list[tuple[tuple[int, int, str], LocalBlock]]] = {}
    for path in sorted(base.rglob("*")):
        if not path.is_file() or not is_block_file_name(path.name):
            continue
        name = path.relative_to(base).as_posix()
        number = parse_block_file_name(path.as_posix()).number
        block = LocalBlock(path, name, number, _run_of(name))
        order = number if number is not None else _header_number(block, max_decompressed)
        runs.setdefault(block.run, []).append(((0, order, name) if order is not None else (1, 0, name), block))
    return [[block for _, block in sorted(runs[run], key=lambda pair: pair[0])] for run in sorted(runs)]


def _run_of(name: str) -> str:
    parts = name.split("/")[:-1]
    if BUCKET_BLOCK_PATH.fullmatch(name):
        parts = parts[:-_BUCKET_NUMBER_FOLDERS]
    return "/".join(parts)


def _header_number(block: LocalBlock, max_decompressed: int | None) -> int | None:
    try:
        return parse_block_file(block.read(), block.name, max_decompressed=max_decompressed).number
    except (FormatError, SourceError):
        return None
