"""Pinned, hashed requirements generated from ``pyproject.toml``: the functions' lock and the backfill image's.

A lock holds every package the project's runtime dependencies resolve to for one Python on Linux
x86-64, each pinned with the hashes of all its distributions and annotated with what requires it
(``uv pip compile --generate-hashes``). There are two targets (:data:`TARGETS`), one parser:

- ``functions/requirements.lock`` for the functions' runtime (Python 3.11);
- ``backfill/requirements.lock`` for the backfill's container image, resolved for the Python
  of the pinned Dataproc runtime (:mod:`hedera_history.backfill.runtime`) from the dependencies the
  Dataproc job imports (:data:`NOT_IN_THE_BACKFILL_IMAGE` left out: the command line's, the
  functions' and the broker's); pyspark is not in it, as the runtime mounts Spark into the container.

Each lock's header records a digest of the dependency list and of the Python it was resolved for,
so a changed ``pyproject.toml`` (or runtime) with a stale lock fails ``make test`` offline
(:func:`lock_problems`); ``hedera-history deploy lock`` regenerates them (that step needs the
package index).

Each built function source gets the part of the functions' lock its code needs
(:func:`requirements_for`): the closure of the project's direct dependencies, less those no function
imports (``rich``, the command line's) and, for functions that never read the stream bucket,
``boto3`` (S3 sources only). pip installs a hashed requirements file in hash-checking mode: every
distribution it downloads must match a pinned hash, and nothing unpinned can slip in.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from hedera_history.backfill import runtime
from hedera_history.errors import BuildError

PLATFORM = "x86_64-manylinux_2_28"


@dataclass(frozen=True, slots=True)
class LockTarget:
    file: Path
    """Relative to the checkout."""
    python_version: str
    title: str
    """``hedera-history <title> lock`` in the header."""
    pinned_for: str
    left_out: frozenset[str] = frozenset()
    """Canonical names of ``pyproject.toml`` dependencies this target does not install."""


NOT_IN_THE_BACKFILL_IMAGE = frozenset(
    {"click", "rich", "functions-framework", "cloudevents", "google-cloud-pubsub", "fastavro"}
)
"""Direct dependencies the Dataproc job never imports (``tests/unit/backfill/test_runtime_image.py``
reads its imports): the command line's, the functions' framework and the broker's."""


FUNCTIONS = LockTarget(
    Path("functions/requirements.lock"),
    "3.11",  # the functions' runtime (``python_runtime`` in ``infra/variables.tf``)
    "function",
    "every function",
)
BACKFILL_IMAGE = LockTarget(
    runtime.IMAGE_DIR / "requirements.lock",
    runtime.PYTHON_VERSION,
    "backfill image",
    f"the backfill's container image (Dataproc Serverless runtime {runtime.RUNTIME_VERSION})",
    NOT_IN_THE_BACKFILL_IMAGE,
)
TARGETS = (FUNCTIONS, BACKFILL_IMAGE)
LOCK_FILE = FUNCTIONS.file
PYTHON_VERSION = FUNCTIONS.python_version
PROJECT = "hedera-history"
NEVER_IMPORTED_BY_FUNCTIONS = frozenset({"rich"})
"""Direct dependencies only the command line imports."""
S3_ONLY = frozenset({"boto3"})
"""Direct dependencies only an S3 source imports (functions that read the stream bucket)."""

_DIGEST = re.compile(r"^# dependencies sha256=([0-9a-f]{64})$", re.MULTILINE)
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


@dataclass(frozen=True, slots=True)
class Pin:
    name: str
    """Canonical (PEP 503) name."""
    version: str
    text: str
    """The pin's lines as locked: the requirement, its hashes and its annotation."""
    hashes: int
    required_by: frozenset[str]
    """Canonical names of what requires it; ``hedera-history`` for direct dependencies."""


@dataclass(frozen=True, slots=True)
class Lock:
    digest: str | None
    pins: dict[str, Pin]

    def closure(self, roots: Iterable[str]) -> list[Pin]:
        """The pins of ``roots`` and of everything they require, in name order."""
        requires: dict[str, set[str]] = {}
        for pin in self.pins.values():
            for parent in pin.required_by:
                requires.setdefault(parent, set()).add(pin.name)
        seen: set[str] = set()
        todo: list[str] = [canonicalize_name(root) for root in roots]
        while todo:
            name = todo.pop()
            if name in seen or name not in self.pins:
                continue
            seen.add(name)
            todo.extend(requires.get(name, ()))
        return [self.pins[name] for name in sorted(seen)]


def project_dependencies(root: Path) -> list[str]:
    with (root / "pyproject.toml").open("rb") as file:
        return list(tomllib.load(file)["project"]["dependencies"])


def target_dependencies(root: Path, target: LockTarget) -> list[str]:
    """The ``pyproject.toml`` dependencies ``target`` installs, as written."""
    return [text for text in project_dependencies(root) if _requirement_name(text) not in target.left_out]


def _requirement_name(text: str) -> str:
    try:
        return canonicalize_name(Requirement(text).name)
    except InvalidRequirement:
        return text  # lock_problems reports it


def dependencies_digest(dependencies: Iterable[str], target: LockTarget = FUNCTIONS) -> str:
    """Of the dependency list as written (sorted), with the runtime it is resolved for."""
    text = "\n".join([f"python={target.python_version} platform={PLATFORM}", *sorted(dependencies)])
    return hashlib.sha256(text.encode()).hexdigest()


def parse_lock(text: str) -> Lock:
    digest_match = _DIGEST.search(text)
    pins: dict[str, Pin] = {}
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if _PIN.match(line) or not line.strip():
            if block:
                pin = _pin(block)
                pins[pin.name] = pin
            block = [line] if line.strip() else []
        elif block:
            block.append(line)
    return Lock(digest_match.group(1) if digest_match else None, pins)


def _pin(lines: list[str]) -> Pin:
    match = _PIN.match(lines[0])
    assert match is not None
    required_by: set[str] = set()
    in_via = False
    for line in lines[1:]:
        stripped = line.strip()
        if stripped.startswith("# via"):
            in_via = True
            rest = stripped.removeprefix("# via").strip()
            if rest:
                required_by.add(_via_name(rest))
        elif in_via and stripped.startswith("#"):
            required_by.add(_via_name(stripped.lstrip("#").strip()))
    return Pin(
        name=canonicalize_name(match.group(1)),
        version=match.group(2),
        text="\n".join(line.rstrip() for line in lines if not line.lstrip().startswith("#")),
        hashes=sum(line.count("--hash=") for line in lines),
        required_by=frozenset(required_by),
    )


def _via_name(text: str) -> str:
    # "hedera-history (pyproject.toml)" or "flask"; uv may add "-r file" forms too.
    return canonicalize_name(text.split(" ", 1)[0])


def read_lock(root: Path, target: LockTarget = FUNCTIONS) -> Lock:
    path = root / target.file
    if not path.is_file():
        raise BuildError(f"{target.file} is missing: run `hedera-history deploy lock`", file=str(path))
    return parse_lock(path.read_text())


def lock_problems(root: Path, target: LockTarget = FUNCTIONS) -> list[str]:
    """What makes ``target``'s lock unfit for the current ``pyproject.toml`` (empty: it fits)."""
    lock = read_lock(root, target)
    dependencies = target_dependencies(root, target)
    problems = []
    if lock.digest != dependencies_digest(dependencies, target):
        problems.append(
            f"{target.file} was resolved from other dependencies than pyproject.toml's, or for another Python "
            f"than {target.python_version}: run `hedera-history deploy lock`"
        )
    for text in dependencies:
        try:
            requirement = Requirement(text)
        except InvalidRequirement as e:
            problems.append(f"pyproject.toml: {text!r}: {e}")
            continue
        pin = lock.pins.get(canonicalize_name(requirement.name))
        if pin is None:
            problems.append(f"{requirement.name} is not pinned in {target.file}")
        elif not requirement.specifier.contains(pin.version, prereleases=True):
            problems.append(f"{requirement.name}=={pin.version} does not satisfy {text!r}")
    problems += [f"{pin.name}=={pin.version} has no hash" for pin in lock.pins.values() if pin.hashes == 0]
    return problems


def direct_dependencies(root: Path, *, reads_stream: bool) -> list[str]:
    """The project's direct dependencies a function imports."""
    left_out = NEVER_IMPORTED_BY_FUNCTIONS | (frozenset() if reads_stream else S3_ONLY)
    names = [canonicalize_name(Requirement(text).name) for text in project_dependencies(root)]
    return [name for name in names if name not in left_out]


def requirements_for(root: Path, *, reads_stream: bool) -> str:
    """A function source's ``requirements.txt``: its closure of the lock, hashes included."""
    lock = read_lock(root)
    pins = lock.closure(direct_dependencies(root, reads_stream=reads_stream))
    header = [
        f"# Generated from {LOCK_FILE} by the function build; installed by pip in hash-checking mode.",
    ]
    return "\n".join([*header, *(pin.text for pin in pins)]) + "\n"


def all_lock_problems(root: Path) -> list[str]:
    """:func:`lock_problems` of every target."""
    return [problem for target in TARGETS for problem in lock_problems(root, target)]


def generate_lock(root: Path, target: LockTarget = FUNCTIONS) -> Path:
    """Resolve ``pyproject.toml``'s dependencies (those ``target`` installs) for its Python into its lock file."""
    dependencies = target_dependencies(root, target)
    with tempfile.TemporaryDirectory(prefix="hedera-history-lock-") as scratch:
        source = "pyproject.toml"
        if target.left_out:
            source = str(Path(scratch) / "requirements.in")
            Path(source).write_text("\n".join(dependencies) + "\n")
        # Annotated as pyproject.toml's own, not by the throw-away input's path.
        result = _compile(root, source, target).replace(f"-r {source}", f"{PROJECT} (pyproject.toml)")
    digest = dependencies_digest(dependencies, target)
    via = "pyproject.toml [project] dependencies" + (
        f" less {', '.join(sorted(target.left_out))}" if target.left_out else ""
    )
    header = (
        f"# hedera-history {target.title} lock: pinned, hashed requirements of {target.pinned_for} "
        "(`hedera-history deploy lock`).\n"
        f"# Resolved for Python {target.python_version} on {PLATFORM} from {via}.\n"
        f"# dependencies sha256={digest}\n"
    )
    path = root / target.file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + result)
    return path


def _compile(root: Path, source: str, target: LockTarget) -> str:
    """``uv pip compile`` of ``source`` (a requirements file or pyproject.toml) for ``target``'s Python."""
    command = [
        _uv(),
        "pip",
        "compile",
        source,
        "--generate-hashes",
        "--no-header",
        "--annotation-style",
        "split",
        "--python-version",
        target.python_version,
        "--python-platform",
        PLATFORM,
    ]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BuildError(f"uv pip compile failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
    return result.stdout


def _uv() -> str:
    beside = Path(sys.executable).with_name("uv")
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if not found:
        raise BuildError("no uv binary: pip install 'hedera-history[deploy]'")
    return found
