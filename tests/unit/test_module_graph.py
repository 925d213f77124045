"""``bench.module_graph``: package edges from source text, relative and lazy imports included."""

from __future__ import annotations

from bench.module_graph import PACKAGE_DIR, SourceFile, edges, render


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(f"{PACKAGE_DIR}/{path}", text)


SOURCES = [
    _file("errors.py", ""),
    _file("store/__init__.py", ""),
    _file("store/keys.py", "from hedera_history.errors import StoreError\nfrom . import model\n"),
    _file("store/model.py", "from ..formats import names\n"),
    _file("formats/names.py", "import hedera_history.errors\n"),
    _file("cli/main.py", "def run():\n    from hedera_history import store, __version__\n"),
    SourceFile("functions/query/main.py", "from hedera_history.store.keys import row_key\n"),
]


def test_edges_count_import_statements_between_packages() -> None:
    assert edges(SOURCES) == {
        ("store", "core"): 1,
        ("store", "formats"): 1,
        ("formats", "core"): 1,
        ("cli", "store"): 1,
        ("cli", "core"): 1,
        ("functions", "store"): 1,
    }


def test_split_core_names_each_top_level_module() -> None:
    split = edges(SOURCES, split_core=True)
    assert split[("store", "errors")] == 1
    assert split[("cli", "__init__")] == 1


def test_render_lists_the_busiest_targets_first() -> None:
    assert render(edges(SOURCES)).splitlines()[0] == "cli -> core 1, store 1"
