"""A directory read and written with the same semantics as a bucket.

Names are ``/``-separated paths relative to the root; a folder exists when it holds a file, as in
a bucket. Files whose last segment starts with ``.~`` are a :class:`LocalSink`'s writes in
progress and are never listed.
"""

from __future__ import annotations

import builtins
import errno
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from hedera_history.errors import (
    ObjectNotFoundError,
    ObjectTooLargeError,
    SourceError,
    SourceUnavailableError,
)
from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, ObjectInfo, split_delimited

_PARTIAL = ".~"
_NOT_FOUND = (FileNotFoundError, NotADirectoryError, IsADirectoryError)
# Errors a network or FUSE file system may return that another attempt can clear.
_TRANSIENT_ERRNOS = frozenset(
    {errno.EIO, errno.EAGAIN, errno.EINTR, errno.ETIMEDOUT, errno.ESTALE, errno.ENETDOWN, errno.ECONNRESET}
)


class _FilesUnderRoot:
    """Objects as files under a root directory: what a source and a sink share."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def url(self) -> str:
        return str(self.root)


class LocalSource(_FilesUnderRoot):
    """Stream files in a local directory (a copy of a bucket, or the generator's output)."""

    def list(
        self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        start = self._folder_of(prefix)
        # With "/" as delimiter nothing below the prefix's folder can be listed, so one level will do.
        for name in self._file_names(start, recursive=delimiter != "/"):
            if not name.startswith(prefix) or split_delimited(name[len(prefix) :], delimiter) is not None:
                continue
            if start_after is not None and name <= start_after:
                continue
            path = self.root / name
            try:
                stat = path.stat()
            except _NOT_FOUND:
                continue  # deleted since the directory was read, as a bucket listing may also miss it
            except OSError as e:
                raise _os_error(e, self._url_of(name)) from e
            yield ObjectInfo(
                name=name,
                size=stat.st_size,
                version=str(stat.st_mtime_ns),
                updated=datetime.fromtimestamp(stat.st_mtime, UTC),
            )

    def list_prefixes(self, prefix: str = "") -> builtins.list[str]:
        start = self._folder_of(prefix)
        folder = self.root / start
        found: builtins.list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = f"{start}{entry.name}/"
                    if entry.is_dir() and name.startswith(prefix) and _holds_a_file(Path(entry.path)):
                        found.append(name)
        except _NOT_FOUND:
            return []
        except OSError as e:
            raise _os_error(e, str(folder)) from e
        return sorted(found)

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        path = self.root / _relative(name)
        try:
            with path.open("rb") as file:
                size = os.fstat(file.fileno()).st_size
                data = file.read(max_bytes + 1) if size <= max_bytes else b""
        except _NOT_FOUND as e:
            raise ObjectNotFoundError("no such object", file=str(path)) from e
        except OSError as e:
            raise _os_error(e, str(path)) from e
        if size > max_bytes or len(data) > max_bytes:
            raise ObjectTooLargeError(f"object is larger than {max_bytes} bytes", file=str(path))
        return data

    def exists(self, name: str) -> bool:
        return (self.root / _relative(name)).is_file()

    def _folder_of(self, prefix: str) -> str:
        """The deepest folder the prefix names completely, '' or ending in '/'."""
        if not self.root.is_dir():
            raise SourceError("no such directory", file=str(self.root))
        folder = prefix.rpartition("/")[0]
        if folder:
            _relative(folder)
            return folder + "/"
        return ""

    def _file_names(self, start: str, *, recursive: bool) -> builtins.list[str]:
        folder = self.root / start
        names: builtins.list[str] = []
        try:
            if recursive:
                for dirpath, _, filenames in os.walk(folder, onerror=_raise):
                    base = Path(dirpath).relative_to(self.root).as_posix()
                    names.extend(f"{base}/{f}" if base != "." else f for f in filenames if _listed(f))
            else:
                with os.scandir(folder) as entries:
                    names.extend(f"{start}{e.name}" for e in entries if e.is_file() and _listed(e.name))
        except _NOT_FOUND:
            return []
        except OSError as e:
            raise _os_error(e, str(folder)) from e
        return sorted(names)

    def _url_of(self, name: str) -> str:
        return str(self.root / name)


class LocalSink(_FilesUnderRoot):
    """Writes objects as files under a root directory; each write replaces the file atomically."""

    def write(self, name: str, data: bytes) -> None:
        with self._staged(name, data) as (path, partial):
            partial.replace(path)

    def create(self, name: str, data: bytes) -> bool:
        with self._staged(name, data) as (path, partial):
            try:
                os.link(partial, path)  # atomic, and fails when the name exists
            except FileExistsError:
                return False
        return True

    @contextmanager
    def _staged(self, name: str, data: bytes) -> Iterator[tuple[Path, Path]]:
        """The object's path and a partial file beside it holding ``data`` (removed afterwards);
        an OSError on the way is the project's error."""
        path = self.root / _relative(name)
        partial = path.with_name(f"{_PARTIAL}{path.name}.{secrets.token_hex(4)}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(data)
            yield path, partial
        except OSError as e:
            raise _os_error(e, str(path)) from e
        finally:
            partial.unlink(missing_ok=True)


def _relative(name: str) -> PurePosixPath:
    """``name`` as a path that stays inside the root."""
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts:
        raise SourceError(f"object name {name!r} must be a relative path inside the root")
    return path


def _listed(file_name: str) -> bool:
    return not file_name.startswith(_PARTIAL)


def _holds_a_file(folder: Path) -> bool:
    return any(any(_listed(f) for f in filenames) for _, _, filenames in os.walk(folder))


def _raise(error: OSError) -> None:
    raise error


def _os_error(error: OSError, where: str) -> SourceError:
    if error.errno in _TRANSIENT_ERRNOS:
        return SourceUnavailableError(f"file system error: {error.strerror}", file=where)
    return SourceError(f"file system error: {error.strerror}", file=where)
