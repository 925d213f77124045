"""The import boundaries of the package, read from the source (``ast``; nothing is imported):

- runtime (every subpackage not in ``deploy.layers.TOOLING``, the top-level modules and the
  functions' entry points) never imports tooling, so the function sources are built without it;
- ``formats`` and ``verify`` (``deploy.layers.PURE``) reach nothing that does I/O, through any
  chain of imports;
- the subpackages import each other one way only: no cycle;
- the backfill and the proofs (``APART_FROM_THE_STREAM``) reach nothing of ``pipeline``, the stream's
  orchestration, through any chain of imports: what they share with it (the address-book rows) lives
  in ``store``;
- the deployed entry points (the Dataproc job, ``functions/*/main.py``) reach, through any chain of
  imports, no tooling module and neither of the command line's libraries (click, rich): the backfill
  image and the function sources are built without them.

Lazy imports inside functions count as much as those at the top of a module.
"""

from __future__ import annotations

import functools
import graphlib
from collections.abc import Iterator

import pytest
from hedera_history.backfill import runtime
from hedera_history.deploy.layers import PURE, TOOLING

from bench import module_graph
from bench.module_graph import (
    CORE,
    PACKAGE_DIR,
    ROOT_PACKAGE,
    SourceFile,
    edges,
    module_of,
    package_of,
    working_tree_sources,
)

IO_PACKAGES = frozenset(
    {
        # a store, a broker, a bucket, a process or the network
        "store",
        "transport",
        "sources",
        "pipeline",
        "follow",
        "api",
        "derived",
        "errata",
        "proofs",
        "backfill",
        *TOOLING,
        # the environment and the log
        "config",
        "logs",
    }
)
"""Project packages and top-level modules that do I/O: a pure package reaches none of them."""
IO_MODULES = (
    "os",
    "socket",
    "ssl",
    "subprocess",
    "shutil",
    "tempfile",
    "http",
    "urllib",
    "requests",
    "urllib3",
    "grpc",
    "google.cloud",
    "google.api_core",
    "google.auth",
    "boto3",
    "botocore",
    "functions_framework",
    "flask",
    "pyspark",
    "py4j",
)
"""Standard and third-party modules that reach the outside world or the environment."""
COMMAND_LINE_LIBRARIES = ("click", "rich")
"""Third-party libraries only the command line imports (left out of the backfill image and the functions)."""
DATAPROC_JOB = str(runtime.JOB_FILE)

SOURCES = working_tree_sources()
LIBRARY = {module_of(source.path): source for source in SOURCES if source.path.startswith(PACKAGE_DIR)}
DEPLOYED_ENTRY_POINTS = [
    source for source in SOURCES if source.path == DATAPROC_JOB or package_of(source.path) == "functions"
]


@functools.cache
def imported_modules(source: SourceFile) -> tuple[str, ...]:
    """``module_graph.imported_modules``, each file parsed once for all the closures this module follows."""
    return tuple(module_graph.imported_modules(source))


def _node(module: str) -> str:
    """A project module's package, top-level modules by their own name (``config``, ``errors``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _project_module(name: str) -> str | None:
    """The project module an imported name lives in (``from a.b import c`` names ``a.b.c`` or ``a.b``)."""
    while name and name not in LIBRARY:
        name = name.rpartition(".")[0]
    return name if name.startswith(ROOT_PACKAGE + ".") else None


def _with_parents(module: str) -> Iterator[str]:
    """``module`` and the packages Python runs first to import it."""
    parts = module.split(".")
    for end in range(2, len(parts) + 1):
        name = ".".join(parts[:end])
        if name in LIBRARY:
            yield name


def _runtime_sources() -> list[SourceFile]:
    return [source for source in SOURCES if package_of(source.path, split_core=True) not in TOOLING]


def test_the_tree_is_read() -> None:
    nodes = {package_of(source.path) for source in SOURCES}
    assert {"functions", CORE, *TOOLING, *PURE, "store", "pipeline", "api"} <= nodes
    assert len(_runtime_sources()) > 100


@pytest.mark.parametrize("source", _runtime_sources(), ids=lambda source: source.path)
def test_runtime_never_imports_tooling(source: SourceFile) -> None:
    tooling = sorted(
        name
        for name in imported_modules(source)
        if (module := _project_module(name)) is not None and _node(module) in TOOLING
    )
    assert not tooling, f"{source.path} (runtime) imports tooling: {tooling}"


@pytest.mark.parametrize("package", PURE)
def test_pure_packages_reach_no_io(package: str) -> None:
    roots = [module for module in LIBRARY if _node(module) == package]
    assert roots
    via: dict[str, str] = {}
    todo = list(roots)
    problems = []
    while todo:
        module = todo.pop()
        for name in imported_modules(LIBRARY[module]):
            target = _project_module(name)
            if target is None:
                if name in IO_MODULES or name.startswith(tuple(f"{io}." for io in IO_MODULES)):
                    problems.append(f"{_chain(via, module)} imports {name}")
                continue
            for reached in _with_parents(target):
                if reached not in via and reached not in roots:
                    via[reached] = module
                    if _node(reached) in IO_PACKAGES:
                        problems.append(f"{_chain(via, reached)} does I/O")
                    else:
                        todo.append(reached)
    assert not problems, "\n".join(problems)


def _chain(via: dict[str, str], module: str) -> str:
    """``a -> b -> module``: how a pure package came to import ``module``."""
    chain = [module]
    while chain[-1] in via:
        chain.append(via[chain[-1]])
    return " -> ".join(reversed(chain))


def test_packages_import_each_other_one_way() -> None:
    graph: dict[str, set[str]] = {}
    for origin, target in edges(SOURCES, split_core=True):
        graph.setdefault(origin, set()).add(target)
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        cycle = e.args[1]
        pytest.fail("packages import each other in a cycle: " + " -> ".join(cycle))


APART_FROM_THE_STREAM = ("backfill", "proofs")
"""Packages that read and write the history without the stream's orchestration (``pipeline``)."""


@pytest.mark.parametrize("package", APART_FROM_THE_STREAM)
def test_backfill_and_proofs_reach_no_stream_orchestration(package: str) -> None:
    roots = [source for source in SOURCES if source.path.startswith(f"{PACKAGE_DIR}/{package}/")]
    assert roots
    problems = sorted(
        f"{root.path} reaches {module} (imported by {importer})"
        for root in roots
        for module, importer in import_closure(root)[0].items()
        if _node(module) == "pipeline"
    )
    assert not problems, "\n".join(problems)


def import_closure(entry: SourceFile) -> tuple[dict[str, str], dict[str, str]]:
    """What ``entry`` reaches through any chain of imports: the project modules and the outside
    modules (standard and third-party), each mapped to the module that imported it first."""
    reached: dict[str, str] = {}
    outside: dict[str, str] = {}
    todo = [entry]
    while todo:
        source = todo.pop()
        importer = source.path
        for name in imported_modules(source):
            target = _project_module(name)
            if target is None:
                outside.setdefault(name, importer)
                continue
            for module in _with_parents(target):
                if module not in reached:
                    reached[module] = importer
                    todo.append(LIBRARY[module])
    return reached, outside


def test_the_deployed_entry_points_are_read() -> None:
    paths = {source.path for source in DEPLOYED_ENTRY_POINTS}
    assert DATAPROC_JOB in paths
    assert {"functions/follow/main.py", "functions/ingest/main.py", "functions/query/main.py"} <= paths


@pytest.mark.parametrize("entry", DEPLOYED_ENTRY_POINTS, ids=lambda source: source.path)
def test_deployed_entry_points_reach_no_tooling_and_no_command_line_library(entry: SourceFile) -> None:
    reached, outside = import_closure(entry)
    assert len(reached) > 5  # the closure is followed, not just the entry's own imports
    tooling = sorted(f"{module} (imported by {by})" for module, by in reached.items() if _node(module) in TOOLING)
    libraries = sorted(
        f"{name} (imported by {by})" for name, by in outside.items() if name.split(".")[0] in COMMAND_LINE_LIBRARIES
    )
    assert not tooling, f"{entry.path} reaches tooling: {tooling}"
    assert not libraries, f"{entry.path} reaches the command line's libraries: {libraries}"
