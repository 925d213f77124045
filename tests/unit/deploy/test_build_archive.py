"""Function source layout, locked requirements and byte-identical archives (installed: tests/integration/deploy)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hedera_history.deploy.build import (
    FIXED_TIME,
    PACKAGE,
    build_function_sources,
    compiled_modules,
    sources_of,
    write_archive,
)
from hedera_history.deploy.catalogue import FUNCTIONS, FunctionSpec, Trigger
from hedera_history.deploy.lock import LOCK_FILE, dependencies_digest
from hedera_history.errors import BuildError
from hedera_history.store.app_profiles import WRITERS


def spec(name: str, source: str, settings: tuple[str, ...] = ("project",)) -> FunctionSpec:
    return FunctionSpec(name, source, name, Trigger.HTTP, settings, 256, 60, 1, WRITERS)


FAKE_DEPENDENCIES = ["flask>=3", "rich>=13", "boto3>=1.34"]
FAKE_LOCK_BODY = """\
blinker==1.9.0 \\
    --hash=sha256:aa
    # via flask
boto3==1.44.8 \\
    --hash=sha256:bb
    # via hedera-history (pyproject.toml)
flask==3.1.0 \\
    --hash=sha256:cc
    # via hedera-history (pyproject.toml)
rich==15.0.0 \\
    --hash=sha256:dd
    # via hedera-history (pyproject.toml)
"""


def fake_repository(root: Path) -> None:
    for folder in ("functions/a", "functions/b"):
        (root / folder).mkdir(parents=True)
        (root / folder / "main.py").write_text(f"# {folder}\n")
        (root / folder / "__pycache__").mkdir()
        (root / folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    package = root / PACKAGE
    for name in ("pipeline", "cli", "gen"):
        (package / name).mkdir(parents=True)
        (package / name / "__init__.py").write_text(f"# {name}\n")
    (package / "__init__.py").write_text("")
    listed = ", ".join(f'"{d}"' for d in FAKE_DEPENDENCIES)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'x'\ndependencies = [{listed}]\n")
    digest = dependencies_digest(FAKE_DEPENDENCIES)
    (root / LOCK_FILE).write_text(f"# dependencies sha256={digest}\n" + FAKE_LOCK_BODY)


def test_functions_sharing_a_folder_are_built_once():
    folders = sources_of(FUNCTIONS)
    assert sorted(name for names in folders.values() for name in names) == sorted(s.name for s in FUNCTIONS)
    assert len(folders) == len({s.source for s in FUNCTIONS})


def test_a_built_source_has_main_its_locked_requirements_and_the_runtime_package(tmp_path):
    fake_repository(tmp_path)
    specs = [spec("one", "functions/a", ("stream_bucket",)), spec("two", "functions/a"), spec("three", "functions/b")]
    built = build_function_sources(tmp_path, tmp_path / "out", specs)
    assert [(b.source, b.functions, b.archive.name) for b in built] == [
        ("functions/a", ("one", "two"), "a.zip"),
        ("functions/b", ("three",), "b.zip"),
    ]
    with zipfile.ZipFile(built[1].archive) as bundle:
        assert bundle.namelist() == [
            "hedera_history/__init__.py",
            "hedera_history/pipeline/__init__.py",
            "main.py",
            "requirements.txt",
        ]
        requirements = bundle.read("requirements.txt").decode()
        assert all(info.date_time == FIXED_TIME for info in bundle.infolist())
    # flask and what it requires, hashed; never rich (the command line's); boto3 only for the stream's reader
    assert "blinker==1.9.0 \\\n    --hash=sha256:aa" in requirements
    assert "flask==3.1.0" in requirements and "rich" not in requirements and "boto3" not in requirements
    assert "boto3==1.44.8" in (built[0].directory / "requirements.txt").read_text()


def test_a_built_source_takes_the_compiled_core_from_the_wheel_never_a_local_build(tmp_path):
    fake_repository(tmp_path)
    package = tmp_path / PACKAGE
    (package / "_speedups.c").write_text("/* source */\n")
    (package / "_speedups.cpython-399-local.so").write_bytes(b"built in place for this machine")
    wheel = tmp_path / "hedera_history-0.1.0-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as bundle:
        bundle.writestr("hedera_history/__init__.py", "")
        bundle.writestr("hedera_history/_speedups.cpython-311-x86_64-linux-gnu.so", b"from the wheel")
        bundle.writestr("hedera_history-0.1.0.dist-info/RECORD", "")
    assert compiled_modules(wheel) == {"hedera_history/_speedups.cpython-311-x86_64-linux-gnu.so": b"from the wheel"}
    built = build_function_sources(tmp_path, tmp_path / "out", [spec("three", "functions/b")], wheel=wheel)
    with zipfile.ZipFile(built[0].archive) as bundle:
        names = bundle.namelist()
        assert bundle.read("hedera_history/_speedups.cpython-311-x86_64-linux-gnu.so") == b"from the wheel"
    assert not [name for name in names if name.endswith((".c", "-local.so"))]
    without = build_function_sources(tmp_path, tmp_path / "plain", [spec("three", "functions/b")])
    with zipfile.ZipFile(without[0].archive) as bundle:
        assert not [name for name in bundle.namelist() if name.endswith(".so")]


def test_a_source_with_its_own_requirements_file_is_a_build_error(tmp_path):
    fake_repository(tmp_path)
    (tmp_path / "functions/b/requirements.txt").write_text("requests>=2\n")
    with pytest.raises(BuildError, match=r"requirements\.lock"):
        build_function_sources(tmp_path, tmp_path / "out", [spec("three", "functions/b")])


def test_two_builds_are_byte_identical(tmp_path):
    fake_repository(tmp_path)
    specs = [spec("one", "functions/a"), spec("three", "functions/b")]
    first = build_function_sources(tmp_path, tmp_path / "first", specs)
    (tmp_path / "functions/a/main.py").touch()  # a newer mtime must not change the archive
    second = build_function_sources(tmp_path, tmp_path / "second", specs)
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
    fake_repository(tmp_path)
    (tmp_path / "functions/empty").mkdir()
    with pytest.raises(BuildError, match=r"main\.py"):
        build_function_sources(tmp_path, tmp_path / "out", [spec("x", "functions/empty")])
