"""Function source layout and byte-identical archives (the wheel itself: tests/integration/deploy)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hedera_history.deploy.build import (
    FIXED_TIME,
    WHEELS_FOLDER,
    build_function_sources,
    sources_of,
    write_archive,
)
from hedera_history.errors import BuildError
from hedera_history.pipeline.functions import FUNCTIONS, FunctionSpec, Trigger


def spec(name: str, source: str) -> FunctionSpec:
    return FunctionSpec(name, source, name, Trigger.HTTP, ("project",), 256, 60, 1)


def fake_repository(root: Path) -> Path:
    for folder in ("functions/a", "functions/b"):
        (root / folder).mkdir(parents=True)
        (root / folder / "main.py").write_text(f"# {folder}\n")
        (root / folder / "__pycache__").mkdir()
        (root / folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    (root / "functions/b/requirements.txt").write_text("\nrequests>=2\n")
    wheel = root / "dist" / "hedera_history-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"PK wheel bytes")
    return wheel


def test_functions_sharing_a_folder_are_built_once():
    folders = sources_of(FUNCTIONS)
    assert sorted(name for names in folders.values() for name in names) == sorted(s.name for s in FUNCTIONS)
    assert len(folders) == len({s.source for s in FUNCTIONS})


def test_a_built_source_has_main_requirements_and_the_wheel(tmp_path):
    wheel = fake_repository(tmp_path)
    specs = [spec("one", "functions/a"), spec("two", "functions/a"), spec("three", "functions/b")]
    built = build_function_sources(tmp_path, tmp_path / "out", wheel, specs)
    assert [(b.source, b.functions, b.archive.name) for b in built] == [
        ("functions/a", ("one", "two"), "a.zip"),
        ("functions/b", ("three",), "b.zip"),
    ]
    with zipfile.ZipFile(built[1].archive) as bundle:
        assert bundle.namelist() == ["main.py", "requirements.txt", f"{WHEELS_FOLDER}/{wheel.name}"]
        assert bundle.read("requirements.txt").decode() == f"./{WHEELS_FOLDER}/{wheel.name}\nrequests>=2\n"
        assert all(info.date_time == FIXED_TIME for info in bundle.infolist())


def test_two_builds_are_byte_identical(tmp_path):
    wheel = fake_repository(tmp_path)
    specs = [spec("one", "functions/a"), spec("three", "functions/b")]
    first = build_function_sources(tmp_path, tmp_path / "first", wheel, specs)
    (tmp_path / "functions/a/main.py").touch()  # a newer mtime must not change the archive
    second = build_function_sources(tmp_path, tmp_path / "second", wheel, specs)
    for a, b in zip(first, second, strict=True):
        assert a.archive.read_bytes() == b.archive.read_bytes()
        assert a.sha256 == b.sha256


def test_archive_entries_are_sorted_whatever_the_creation_order(tmp_path):
    for order, folder in ((("b", "a", "c/d"), "one"), (("c/d", "a", "b"), "two")):
        for name in order:
            path = tmp_path / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(name)
        write_archive(tmp_path / folder, tmp_path / f"{folder}.zip")
    assert (tmp_path / "one.zip").read_bytes() == (tmp_path / "two.zip").read_bytes()


def test_a_source_without_main_is_a_build_error(tmp_path):
    wheel = fake_repository(tmp_path)
    (tmp_path / "functions/empty").mkdir()
    with pytest.raises(BuildError, match=r"main\.py"):
        build_function_sources(tmp_path, tmp_path / "out", wheel, [spec("x", "functions/empty")])
