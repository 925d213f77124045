"""The package graph of ``hedera_history``: package -> package import edges with counts, at any commit.

    python -m bench.module_graph             # the working tree
    python -m bench.module_graph bcb28b1     # a commit, read with ``git show`` (nothing is checked out)

A package is a first-level name under ``hedera_history`` (``store``, ``cli`` ...); the top-level
modules (``config``, ``errors``, ``logs`` ...) count as one package, ``core``. An edge counts the
import statements (``import`` and ``from ... import``, lazy ones inside functions included) from a
module of one package naming a module of another; the source is parsed, never imported. The
functions' entry points (``functions/*/main.py``) appear as ``functions``, and at commits that had it
the old Dataproc job shim (``backfill/job.py``) as ``backfill-job``. Not in ``make bench`` (the name
does not end in ``_bench``).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = "shared/src/hedera_history"
ROOT_PACKAGE = "hedera_history"
CORE = "core"
"""The top-level modules (``config``, ``errors``, ``logs``, ``times`` ...) as one package."""
ENTRY_POINTS = {"functions": "functions", "backfill": "backfill-job"}
"""Folders at the repository root whose modules import the library, and the name they appear under."""
SKIPPED = ("proto_gen",)
"""Generated code: imports nothing of the project."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str
    """Relative to the repository root."""
    text: str


def package_of(path: str, *, split_core: bool = False) -> str | None:
    """The graph node of a file (``None``: not part of the graph); ``split_core``: a top-level module
    is a node of its own (``config``, ``errors``), as cycles through ``core`` are not cycles."""
    parts = path.split("/")
    if path.startswith(PACKAGE_DIR + "/"):
        inner = parts[len(PACKAGE_DIR.split("/")) :]
        if inner[0] in SKIPPED:
            return None
        if len(inner) > 1:
            return inner[0]
        return inner[0].removesuffix(".py") if split_core else CORE
    return ENTRY_POINTS.get(parts[0])


def module_of(path: str) -> str:
    """``shared/src/hedera_history/store/keys.py`` -> ``hedera_history.store.keys``."""
    inner = path.removeprefix(PACKAGE_DIR.rsplit("/", 1)[0] + "/").removesuffix(".py")
    return inner.removesuffix("/__init__").replace("/", ".")


def imported_modules(source: SourceFile) -> Iterator[str]:
    """Absolute names of every project module ``source`` imports (relative imports resolved)."""
    tree = ast.parse(source.text, filename=source.path)
    here = module_of(source.path).split(".")
    is_package = source.path.endswith("__init__.py")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join([*base, *([node.module] if node.module else [])])
            else:
                stem = node.module or ""
            # ``from hedera_history import store`` names a package: count each imported name.
            if stem == ROOT_PACKAGE:
                yield from (f"{stem}.{alias.name}" for alias in node.names)
            else:
                yield stem


def target_package(module: str, nodes: set[str], *, split_core: bool = False) -> str | None:
    """The graph node ``module`` belongs to, ``nodes`` naming the subpackages (and with ``split_core``
    the top-level modules); ``None``: not the project's. A name of ``hedera_history/__init__.py``
    (``__version__``) is ``core``, or ``__init__`` with ``split_core``."""
    parts = module.split(".")
    if parts[0] != ROOT_PACKAGE or len(parts) < 2 or parts[1] in SKIPPED:
        return None
    if parts[1] in nodes:
        return parts[1]
    return "__init__" if split_core else CORE


def edges(sources: Iterable[SourceFile], *, split_core: bool = False) -> Counter[tuple[str, str]]:
    """(importing package, imported package) -> number of import statements, self-edges left out."""
    files = [(s, origin) for s in sources if (origin := package_of(s.path, split_core=split_core)) is not None]
    nodes = {origin for source, origin in files if source.path.startswith(PACKAGE_DIR) and origin != CORE}
    counted: Counter[tuple[str, str]] = Counter()
    for source, origin in files:
        for module in imported_modules(source):
            target = target_package(module, nodes, split_core=split_core)
            if target is not None and target != origin:
                counted[origin, target] += 1
    return counted


def working_tree_sources(root: Path = ROOT) -> list[SourceFile]:
    found = []
    for folder in (PACKAGE_DIR, *ENTRY_POINTS):
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            found.append(SourceFile(relative, path.read_text()))
    return found


def commit_sources(commit: str, root: Path = ROOT) -> list[SourceFile]:
    listing = _git(root, "ls-tree", "-r", "--name-only", commit, "--", PACKAGE_DIR, *ENTRY_POINTS)
    paths = [line for line in listing.splitlines() if line.endswith(".py")]
    return [SourceFile(path, _git(root, "show", f"{commit}:{path}")) for path in paths]


def _git(root: Path, *arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True, check=True).stdout


def render(counted: Counter[tuple[str, str]]) -> str:
    """One line per importing package: ``store -> core 12, formats 3``, busiest targets first."""
    lines = []
    for origin in sorted({origin for origin, _ in counted}):
        targets = sorted(
            ((target, count) for (source, target), count in counted.items() if source == origin),
            key=lambda item: (-item[1], item[0]),
        )
        lines.append(f"{origin} -> " + ", ".join(f"{target} {count}" for target, count in targets))
    return "\n".join(lines)


def main(arguments: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if arguments is None else arguments
    sources = commit_sources(arguments[0]) if arguments else working_tree_sources()
    print(render(edges(sources)))


if __name__ == "__main__":
    main()
