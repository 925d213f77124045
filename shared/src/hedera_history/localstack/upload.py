"""``stack upload DIR``: write a directory's stream files into the stack's bucket, as nodes would.

Every record, signature and sidecar file under DIR (either bucket layout) goes to the same
relative path in the bucket: every node's copy, each one an upload, hence a finalize event.
In order, files go period by period (record file and sidecars before the signature, as a node
writes them); ``shuffle`` mixes them, and ``duplicates`` uploads that many files a second time
(a new generation, so a second event) at a later point, which exercises idempotent ingest.
Anything else in DIR (``address-book.bin``, ``keys/``, ``ground-truth.json``) is not uploaded.

The stack verifies with one bootstrap address book (``state.address_book``). When the stack has
none yet, the upload puts DIR's ``address-book.bin`` in place before the first file is written
(:func:`hedera_history.localstack.directory_upload.ready_directory`).
"""

from __future__ import annotations

import enum
import filecmp
import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hedera_history.errors import FileNameError, StackError
from hedera_history.formats.names import StreamFileKind
from hedera_history.formats.stream_paths import parse_object_path
from hedera_history.localstack.stack_state import StackState
from hedera_history.sources.gcs import GcsSink

DIRECTORY_BOOK = "address-book.bin"
"""Where ``hedera-history generate`` (and ``demo``) put a stream's bootstrap book."""

_KIND_ORDER = {StreamFileKind.RECORD: 0, StreamFileKind.SIDECAR: 1, StreamFileKind.SIGNATURE: 2}


@dataclass(frozen=True, slots=True)
class StreamFile:
    relative: str
    """Path inside DIR with ``/`` separators: the object name in the bucket."""
    path: Path
    consensus_ns: int
    kind: StreamFileKind


@dataclass(frozen=True, slots=True)
class Upload:
    file: StreamFile
    repeat: bool
    """True for a duplicate re-upload of a file written before."""


def find_stream_files(directory: Path) -> list[StreamFile]:
    """Every stream file under ``directory``, in the order nodes produce them."""
    if not directory.is_dir():
        raise StackError(f"{directory} is not a directory")
    found: list[StreamFile] = []
    for path in directory.rglob("*"):
        if not path.is_file():
            continue
        relative = path.relative_to(directory).as_posix()
        try:
            parsed = parse_object_path(relative)
        except FileNameError:
            continue
        found.append(StreamFile(relative, path, parsed.file.consensus_ns, parsed.file.kind))
    found.sort(key=lambda f: (f.consensus_ns, _KIND_ORDER[f.kind], f.relative))
    return found


def distinct_periods(files: Sequence[StreamFile]) -> int:
    """How many periods have a record file: the number of blocks the files make."""
    return len({f.consensus_ns for f in files if f.kind is StreamFileKind.RECORD})


def plan_uploads(
    files: Sequence[StreamFile], *, shuffle: bool = False, duplicates: int = 0, seed: int = 0
) -> list[Upload]:
    """The uploads in order: every file once (shuffled if asked), plus ``duplicates`` re-uploads of
    randomly chosen files, each placed somewhere after that file's first upload."""
    if duplicates < 0:
        raise StackError("--duplicates cannot be negative")
    rng = random.Random(seed)
    order = list(files)
    if shuffle:
        rng.shuffle(order)
    plan = [Upload(f, repeat=False) for f in order]
    if not order:
        return plan
    for _ in range(duplicates):
        first = rng.randrange(len(order))
        first_position = next(i for i, u in enumerate(plan) if u.file is order[first] and not u.repeat)
        plan.insert(rng.randint(first_position + 1, len(plan)), Upload(order[first], repeat=True))
    return plan


class BookInstall(enum.Enum):
    INSTALLED = "installed"
    """The stack had no book; DIR's is in place now."""
    SAME = "same"
    """The stack's book is DIR's."""
    KEPT_OTHER = "kept-other"
    """The stack has another book than DIR's and keeps it."""
    NONE_IN_DIRECTORY = "none-in-directory"
    """DIR has no book; the stack's own is used."""


def install_address_book(state: StackState, directory: Path) -> BookInstall:
    """Give the stack DIR's ``address-book.bin`` if it has no book yet; :class:`StackError` when
    neither has one (nothing could verify)."""
    stack_book = Path(state.address_book)
    candidate = directory / DIRECTORY_BOOK
    if not candidate.is_file():
        if stack_book.is_file():
            return BookInstall.NONE_IN_DIRECTORY
        raise StackError(
            f"the stack has no address book and {directory} holds no {DIRECTORY_BOOK}: "
            "start the stack with `stack up --address-book FILE`"
        )
    if not stack_book.is_file():
        stack_book.parent.mkdir(parents=True, exist_ok=True)
        temporary = stack_book.with_name(f".{stack_book.name}.tmp")
        shutil.copyfile(candidate, temporary)
        temporary.replace(stack_book)
        return BookInstall.INSTALLED
    return BookInstall.SAME if filecmp.cmp(candidate, stack_book, shallow=False) else BookInstall.KEPT_OTHER


def bucket_sink(state: StackState) -> GcsSink:
    """A client that writes into the stack's bucket on its GCS emulator."""
    return GcsSink(state.bucket, project=state.project, emulator_host=state.storage_endpoint)


def upload_files(state: StackState, plan: Sequence[Upload], on_upload: Callable[[Upload], None] | None = None) -> int:
    """Write each planned file into the stack's bucket; returns the number of uploads."""
    sink = bucket_sink(state)
    for upload in plan:
        sink.write(upload.file.relative, upload.file.path.read_bytes())
        if on_upload is not None:
            on_upload(upload)
    return len(plan)
