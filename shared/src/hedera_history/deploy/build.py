"""Reproducible function sources: each source folder of ``FUNCTIONS`` with the project wheel inside.

A built source is what Cloud Functions' Python build expects: ``main.py`` at the top and a
``requirements.txt`` that installs the vendored wheel (whose own requirements come from the package
index). Two builds of the same tree are byte-identical: files in sorted order, one fixed timestamp,
fixed permissions, and a wheel built with ``SOURCE_DATE_EPOCH``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hedera_history.deploy.contracts import source_archive_name
from hedera_history.errors import BuildError
from hedera_history.pipeline.functions import FUNCTIONS, FunctionSpec

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip entry can hold; every built file carries it."""
FIXED_EPOCH = 315532800
"""``FIXED_TIME`` as seconds since 1970 (UTC), for ``SOURCE_DATE_EPOCH`` and file mtimes."""
WHEELS_FOLDER = "wheels"

# What the wheel is built from; everything else in the repository stays out of it.
_WHEEL_INPUTS = ("pyproject.toml", "README.md", "shared/src/hedera_history")
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".mypy_cache", ".pytest_cache")


@dataclass(frozen=True, slots=True)
class BuiltSource:
    source: str
    """The source folder, e.g. ``functions/ingest``."""
    functions: tuple[str, ...]
    """The functions deployed from it."""
    directory: Path
    archive: Path
    sha256: str
    """Of the archive."""


def sources_of(functions: Iterable[FunctionSpec] = FUNCTIONS) -> dict[str, tuple[str, ...]]:
    """Source folder to the names of the functions built from it, in declaration order."""
    folders: dict[str, tuple[str, ...]] = {}
    for spec in functions:
        folders[spec.source] = (*folders.get(spec.source, ()), spec.name)
    return folders


def build_wheel(root: Path, out_dir: Path) -> Path:
    """Build the project wheel (no dependencies) into ``out_dir`` from a staged copy of its inputs."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hedera-history-wheel-") as staging_name:
        staging = Path(staging_name)
        for name in _WHEEL_INPUTS:
            origin = root / name
            if origin.is_dir():
                shutil.copytree(origin, staging / name, ignore=_IGNORED)
            elif origin.is_file():
                shutil.copy2(origin, staging / name)
            else:
                raise BuildError(f"wheel input {name} is missing", file=str(origin))
        built = staging / "out"
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(built), str(staging)]
        environment = {**os.environ, "SOURCE_DATE_EPOCH": str(FIXED_EPOCH), "PYTHONHASHSEED": "0"}
        result = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
        if result.returncode != 0:
            raise BuildError(f"pip wheel failed ({result.returncode}): {_tail(result.stderr or result.stdout)}")
        wheels = sorted(built.glob("*.whl"))
        if len(wheels) != 1:
            raise BuildError(f"pip wheel produced {len(wheels)} wheels, expected one")
        target = out_dir / wheels[0].name
        shutil.copyfile(wheels[0], target)
    return target


def build_function_sources(
    root: Path, out_dir: Path, wheel: Path, functions: Iterable[FunctionSpec] = FUNCTIONS
) -> list[BuiltSource]:
    """Build every source folder of ``functions`` into ``out_dir/<folder name>/`` and
    ``out_dir/<folder name>.zip`` (the archive name Terraform uploads)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    built = []
    for source, names in sources_of(functions).items():
        archive = out_dir / source_archive_name(source)
        directory = out_dir / archive.name.removesuffix(".zip")
        _stage_source(root / source, directory, wheel)
        write_archive(directory, archive)
        built.append(BuiltSource(source, names, directory, archive, _sha256(archive)))
    return built


def _stage_source(source: Path, directory: Path, wheel: Path) -> None:
    if not (source / "main.py").is_file():
        raise BuildError("a function source needs a main.py", file=str(source))
    if directory.exists():
        shutil.rmtree(directory)
    shutil.copytree(source, directory, ignore=_IGNORED)
    (directory / WHEELS_FOLDER).mkdir(exist_ok=True)
    shutil.copyfile(wheel, directory / WHEELS_FOLDER / wheel.name)
    (directory / "requirements.txt").write_text(_requirements(source, wheel.name))
    for path in sorted(directory.rglob("*")):
        os.utime(path, (FIXED_EPOCH, FIXED_EPOCH))


def _requirements(source: Path, wheel_name: str) -> str:
    """The vendored wheel first (pip resolves its dependencies), then the folder's own lines."""
    lines = [f"./{WHEELS_FOLDER}/{wheel_name}"]
    own = source / "requirements.txt"
    if own.is_file():
        lines += [line for line in own.read_text().splitlines() if line.strip()]
    return "\n".join(lines) + "\n"


def write_archive(directory: Path, archive: Path) -> None:
    """Zip ``directory`` with sorted entries, a fixed timestamp and fixed permissions."""
    files = sorted(path for path in directory.rglob("*") if path.is_file())
    with zipfile.ZipFile(archive, "w") as bundle:
        for path in files:
            entry = zipfile.ZipInfo(path.relative_to(directory).as_posix(), date_time=FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = 3  # Unix, so the permission bits below are honoured
            entry.external_attr = 0o644 << 16
            bundle.writestr(entry, path.read_bytes())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])
