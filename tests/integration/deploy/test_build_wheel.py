"""The project wheel (the runtime: no tooling, none of its console scripts) builds from its inputs
alone, twice byte for byte the same, with the compiled core, and the whole function build through
`hedera-history deploy build` reports every source, each holding the wheel's compiled core."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.deploy.build import FIXED_TIME, build_wheel, compiled_modules
from hedera_history.deploy.catalogue import FUNCTIONS
from hedera_history.deploy.repo_paths import FUNCTIONS_BUILD_DIR, WHEEL_DIR

from tests.unit.deploy.infra import INFRA, REPO


def snapshot(root: Path) -> Path:
    """The wheel's inputs copied once, so that edits elsewhere in the tree cannot race the test."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copy(REPO / "README.md", root / "README.md")
    shutil.copytree(
        REPO / "shared" / "src" / "hedera_history",
        root / "shared" / "src" / "hedera_history",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    return root


def test_two_wheel_builds_are_byte_identical(tmp_path):
    source = snapshot(tmp_path / "source")
    first = build_wheel(source, tmp_path / "first")
    second = build_wheel(source, tmp_path / "second")
    assert first.name == second.name
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as wheel:
        names = wheel.namelist()
        assert {"hedera_history/backfill/launch.py", "hedera_history/backfill/task.py"} <= set(names)
        assert not [name for name in names if name.endswith("dataproc_job.py")]  # staged from backfill/
        tooling = tuple(f"hedera_history/{package}/" for package in ("cli", "deploy", "gen", "localstack"))
        assert not [name for name in names if name.startswith(tooling)]
        assert "hedera_history/py.typed" in names
        assert [name for name in names if name.startswith("hedera_history/_speedups.") and name.endswith(".so")]
        assert not [name for name in names if "__pycache__" in name or name.startswith(("tests/", "functions/"))]
        assert {info.date_time for info in wheel.infolist()} == {FIXED_TIME}
        entry_points = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
        declared = "".join(wheel.read(name).decode() for name in entry_points)
        assert not [package for package in tooling if package.replace("/", ".") in declared], declared


def test_deploy_build_writes_the_wheel_and_every_function_archive(tmp_path):
    root = snapshot(tmp_path)
    shutil.copytree(REPO / "functions", root / "functions", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "backfill", root / "backfill")  # its lock is checked too
    (root / "infra").mkdir()
    shutil.copytree(INFRA / "generated", root / "infra" / "generated")
    result = CliRunner().invoke(cli, ["deploy", "--root", str(root), "build"])
    assert result.exit_code == 0, result.output
    wheels = list((root / WHEEL_DIR).glob("*.whl"))
    assert len(wheels) == 1
    assert result.stdout.strip() == str(wheels[0].relative_to(root))
    compiled = compiled_modules(wheels[0])
    assert compiled
    for spec in FUNCTIONS:
        archive = root / FUNCTIONS_BUILD_DIR / f"{Path(spec.source).name}.zip"
        with zipfile.ZipFile(archive) as bundle:
            names = set(bundle.namelist())
            assert all(bundle.read(name) == content for name, content in compiled.items())
            assert {"main.py", "requirements.txt", "hedera_history/pipeline/ingest.py"} <= names
            assert not any(name.endswith(".whl") or name.startswith("hedera_history/cli/") for name in names)
        assert spec.source in result.stderr
