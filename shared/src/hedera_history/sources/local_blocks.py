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
    runs: dict[str, list[tuple[tuple[int, int, str], LocalBlock]]] = {}
    for block in list_block_files(root):
        order = block_number(block, max_decompressed=max_decompressed)
        key = (0, order, block.name) if order is not None else (1, 0, block.name)
        runs.setdefault(block.run, []).append((key, block))
    return [[block for _, block in sorted(runs[run], key=lambda pair: pair[0])] for run in sorted(runs)]


def list_block_files(root: Path) -> list[LocalBlock]:
    """Every block file under ``root``, by path, nothing read."""
    if not root.is_dir():
        raise SourceError(f"not a directory: {root}", file=str(root))
    base = root.resolve()
    blocks = []
    for path in sorted(base.rglob("*")):
        if path.is_file() and is_block_file_name(path.name):
            name = path.relative_to(base).as_posix()
            blocks.append(LocalBlock(path, name, parse_block_file_name(path.as_posix()).number, _run_of(name)))
    return blocks


def block_number(block: LocalBlock, *, max_decompressed: int | None = None) -> int | None:
    """The number its path gives, else the one in its header (the file is read); None when the
    path gives none and the file cannot be read."""
    if block.number is not None:
        return block.number
    try:
        return parse_block_file(block.read(), block.name, max_decompressed=max_decompressed).number
    except (FormatError, SourceError):
        return None


def _run_of(name: str) -> str:
    parts = name.split("/")[:-1]
    if BUCKET_BLOCK_PATH.fullmatch(name):
        parts = parts[:-_BUCKET_NUMBER_FOLDERS]
    return "/".join(parts)
