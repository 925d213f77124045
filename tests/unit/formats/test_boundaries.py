"""Where code may reach: the formats read no settings, and only the generator's users import it."""

from __future__ import annotations

import ast
from pathlib import Path

import hedera_history

PACKAGE = Path(hedera_history.__file__).parent
GENERATOR_USERS = ("gen", "cli", "localstack")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_the_formats_read_no_settings() -> None:
    reading = [
        str(path.relative_to(PACKAGE))
        for path in _modules(PACKAGE / "formats")
        if any(name == "hedera_history.config" or name.startswith("hedera_history.config.") for name in _imports(path))
    ]
    assert reading == []


def test_only_the_generators_users_import_it() -> None:
    importing = [
        str(path.relative_to(PACKAGE))
        for path in _modules(PACKAGE)
        if path.relative_to(PACKAGE).parts[0] not in GENERATOR_USERS
        and any(name == "hedera_history.gen" or name.startswith("hedera_history.gen.") for name in _imports(path))
    ]
    assert importing == []
