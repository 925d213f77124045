"""Reproducible function sources: each source folder of ``FUNCTIONS`` with the runtime package inside.

A built source is what Cloud Functions' Python build expects: ``main.py`` at the top, the
``hedera_history`` package beside it (only the runtime: the tooling of ``deploy.layers`` and the
backfill are left out, no function imports them), and a
``requirements.txt`` of pinned, hashed requirements cut from ``functions/requirements.lock`` to what
that function imports (``deploy.lock``). Two builds of the same tree are byte-identical: files in
sorted order, one fixed timestamp, fixed permissions. The wheel (``build_wheel``) is what the
backfill ships to Spark: the runtime, declaring none of the tooling's console scripts.

The compiled core (``hedera_history._speedups``) is built once, into the wheel, by the compiler of
the machine that builds it (Cloud Build's python:3.11, the Python of the functions' runtime and of
the backfill image); each function source takes it from that wheel. A module compiled in place for
the local interpreter (``pip install -e``) is never shipped.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from hedera_history.deploy import contracts
from hedera_history.deploy.catalogue import FUNCTIONS, FunctionSpec
from hedera_history.deploy.contracts import source_archive_name
from hedera_history.deploy.layers import TOOLING
from hedera_history.deploy.lock import requirements_for
from hedera_history.deploy.repo_paths import FUNCTIONS_BUILD_DIR
from hedera_history.errors import BuildError, StaleContractError

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip entry can hold; every built file carries it."""
FIXED_EPOCH = 315532800
"""``FIXED_TIME`` as seconds since 1970 (UTC), for ``SOURCE_DATE_EPOCH`` and file mtimes."""
PACKAGE = Path("shared/src/hedera_history")
NOT_SHIPPED_TO_FUNCTIONS = (*TOOLING, "backfill")
"""Subpackages no function imports: the tooling (no runtime module imports it) and the backfill
(``tests/integration/deploy`` imports every function without them)."""
NOT_IN_THE_WHEEL = TOOLING
"""The wheel is the runtime only: Dataproc runs ``backfill/dataproc_job.py`` (beside the image recipe),
which imports no tooling (``tests/unit/test_layers.py``, ``tests/unit/deploy/test_wheel_job.py``)."""
STREAM_SETTING = "stream_bucket"
"""A function reading this setting reads the stream bucket, which may be on S3."""

# What the wheel is built from; everything else in the repository stays out of it.
_WHEEL_INPUTS = ("pyproject.toml", "README.md", str(PACKAGE))
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".mypy_cache", ".pytest_cache")
COMPILED_SUFFIXES = (".so", ".pyd")
"""Compiled modules: built for one interpreter and platform, so taken from the wheel, never from the tree."""
_LOCAL_BUILDS = shutil.ignore_patterns(*(f"*{suffix}" for suffix in COMPILED_SUFFIXES))
_C_SOURCES = shutil.ignore_patterns("*.c")


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
    """Build the project wheel (no dependencies) into ``out_dir`` from a staged copy of its inputs,
    the runtime alone (not :data:`NOT_IN_THE_WHEEL`): what the backfill runs on Dataproc."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hedera-history-wheel-") as staging_name:
        staging = Path(staging_name)
        for name in _WHEEL_INPUTS:
            origin = root / name
            if origin.is_dir():
                ignore = _package_ignore(root / PACKAGE, NOT_IN_THE_WHEEL, _LOCAL_BUILDS)
                shutil.copytree(origin, staging / name, ignore=ignore)
            elif name == "pyproject.toml" and origin.is_file():
                (staging / name).write_text(wheel_pyproject(origin.read_text()))
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


def wheel_pyproject(text: str) -> str:
    """``pyproject.toml`` as the wheel is built from it: without the console scripts whose modules
    the wheel leaves out (:data:`NOT_IN_THE_WHEEL`: ``hedera-history`` is the command line, tooling,
    installed from the source tree), so the wheel declares no command it cannot run."""
    try:
        scripts: dict[str, str] = tomllib.loads(text).get("project", {}).get("scripts", {})
    except tomllib.TOMLDecodeError as e:
        raise BuildError(f"pyproject.toml does not parse: {e}") from e
    left_out = tuple(f"{PACKAGE.name}.{name}." for name in NOT_IN_THE_WHEEL)
    dropped = {name for name, target in scripts.items() if target.startswith(left_out)}
    lines: list[str] = []
    table = ""
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("["):
            table = stripped
        elif table == "[project.scripts]" and stripped.partition("=")[0].strip().strip('"') in dropped:
            continue
        lines.append(line)
    kept = "".join(lines)
    left = tomllib.loads(kept).get("project", {}).get("scripts", {})
    if set(left) != set(scripts) - dropped:
        raise BuildError(f"cannot leave the console scripts {sorted(dropped)} out of pyproject.toml")
    return kept


def build_function_sources(
    root: Path, out_dir: Path, functions: Iterable[FunctionSpec] = FUNCTIONS, *, wheel: Path | None = None
) -> list[BuiltSource]:
    """Build every source folder of ``functions`` into ``out_dir/<folder name>/`` and
    ``out_dir/<folder name>.zip`` (the archive name Terraform uploads), each with the compiled
    modules of ``wheel`` (none without it: the functions then run the pure-Python code)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    functions = list(functions)
    compiled = {} if wheel is None else compiled_modules(wheel)
    built = []
    for source, names in sources_of(functions).items():
        archive = out_dir / source_archive_name(source)
        directory = out_dir / archive.name.removesuffix(".zip")
        reads_stream = any(STREAM_SETTING in spec.settings for spec in functions if spec.source == source)
        _stage_source(root, root / source, directory, requirements_for(root, reads_stream=reads_stream), compiled)
        write_archive(directory, archive)
        built.append(BuiltSource(source, names, directory, archive, _sha256(archive)))
    return built


def require_plan_inputs(root: Path) -> None:
    """A plan needs current contracts and built function sources: a :class:`StaleContractError` or a
    :class:`BuildError` naming the command that makes them."""
    stale = contracts.stale_contracts(root)
    if stale:
        raise StaleContractError(f"{len(stale)} contract file(s) stale; run hedera-history deploy generate")
    archives = {function["archive"] for function in contracts.functions_contract()["functions"].values()}
    missing = [name for name in sorted(archives) if not (root / FUNCTIONS_BUILD_DIR / name).is_file()]
    if missing:
        raise BuildError(f"function sources not built ({', '.join(missing)}); run hedera-history deploy build")


def compiled_modules(wheel: Path) -> dict[str, bytes]:
    """The package's compiled modules in ``wheel``, by their path in it (``hedera_history/...``)."""
    with zipfile.ZipFile(wheel) as bundle:
        names = sorted(bundle.namelist())
        return {
            name: bundle.read(name)
            for name in names
            if name.startswith(f"{PACKAGE.name}/") and name.endswith(COMPILED_SUFFIXES)
        }


def _stage_source(root: Path, source: Path, directory: Path, requirements: str, compiled: dict[str, bytes]) -> None:
    if not (source / "main.py").is_file():
        raise BuildError("a function source needs a main.py", file=str(source))
    if (source / "requirements.txt").is_file():
        raise BuildError(
            "a function source takes its requirements from functions/requirements.lock, not its own file",
            file=str(source / "requirements.txt"),
        )
    if directory.exists():
        shutil.rmtree(directory)
    shutil.copytree(source, directory, ignore=_IGNORED)
    package = root / PACKAGE
    if not package.is_dir():
        raise BuildError("the runtime package is missing", file=str(package))
    ignore = _package_ignore(package, NOT_SHIPPED_TO_FUNCTIONS, _LOCAL_BUILDS, _C_SOURCES)
    shutil.copytree(package, directory / package.name, ignore=ignore)
    for name, content in compiled.items():
        (directory / name).write_bytes(content)
    (directory / "requirements.txt").write_text(requirements)
    for path in sorted(directory.rglob("*")):
        os.utime(path, (FIXED_EPOCH, FIXED_EPOCH))


Ignore = Callable[[str, list[str]], set[str]]
"""What ``shutil.ignore_patterns`` returns: the names of a folder to leave out."""


def _package_ignore(
    package: Path, left_out: tuple[str, ...], *patterns: Ignore
) -> Callable[[str, list[str]], list[str]]:
    """A ``copytree`` ignore: caches, the subpackages ``left_out`` of ``package``, and what ``patterns`` match."""
    folders = {f"{package}/{name}" for name in left_out}

    def ignore(folder: str, names: list[str]) -> list[str]:
        matched = [name for pattern in (_IGNORED, *patterns) for name in pattern(folder, names)]
        return [*matched, *(name for name in names if f"{folder}/{name}" in folders)]

    return ignore


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
