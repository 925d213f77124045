from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hedera_history.errors import EmulatorError, PrerequisiteError
from hedera_history.localstack.cloud_sdk import CloudSdk
from hedera_history.localstack.prerequisites import (
    BIGTABLE_COMPONENT,
    PUBSUB_COMPONENT,
    Check,
    check_component,
    check_java,
    judge_compiled_core,
    judge_component,
    judge_gcloud,
    judge_java,
    judge_module,
    judge_python,
    locate_java,
    parse_java_major,
    problems,
    require,
)


@pytest.mark.parametrize(
    ("output", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6)', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "22-ea" 2024-03-19', 22),
        ('openjdk version "11.0.2-ea" 2019-01-15', 11),
        ('java version "1.8.0_392"\nJava(TM) SE Runtime Environment', 8),
        ('Picked up JAVA_TOOL_OPTIONS: -Xmx1g\nopenjdk version "17.0.1" 2021-10-19', 17),
        ("bash: java: command not found", None),
        ('openjdk version "" 2021', None),
        ("", None),
    ],
)
def test_parse_java_major(output: str, major: int | None) -> None:
    assert parse_java_major(output) == major


def test_judge_java_accepts_17_and_newer() -> None:
    check = judge_java("/usr/bin/java", 'openjdk version "21.0.2" 2024-01-16')
    assert check.ok and not check.problem
    assert "Java 21 at /usr/bin/java" in check.found


def test_judge_java_without_java_names_the_debian_package() -> None:
    check = judge_java(None, None)
    assert check.problem
    assert check.found == "no java in PATH"
    assert check.fix == "sudo apt-get install -y openjdk-17-jre-headless"


def test_judge_java_too_old_says_how_to_switch() -> None:
    check = judge_java("/usr/bin/java", 'java version "1.8.0_392"')
    assert check.problem
    assert "Java 8" in check.found
    assert "openjdk-17-jre-headless" in check.fix
    assert "update-alternatives --config java" in check.fix


def test_judge_java_with_java_home_points_at_java_home() -> None:
    check = judge_java(None, None, "$JAVA_HOME/bin (JAVA_HOME=/opt/jdk)")
    assert check.problem
    assert "JAVA_HOME=/opt/jdk" in check.found
    assert "JAVA_HOME" in check.fix


@pytest.mark.parametrize("output", [None, "", "something else"])
def test_judge_java_unreadable_version(output: str | None) -> None:
    check = judge_java("/usr/bin/java", output)
    assert check.problem
    assert "openjdk-17" in check.fix


@pytest.mark.parametrize(("version", "ok"), [((3, 10, 12), False), ((3, 11, 0), True), ((3, 13, 1), True)])
def test_judge_python(version: tuple[int, int, int], ok: bool) -> None:
    check = judge_python(version)
    assert check.ok is ok
    assert ".".join(map(str, version)) in check.found


def test_judge_gcloud_missing_points_at_the_install_page() -> None:
    check = judge_gcloud(None)
    assert check.problem
    assert "https://cloud.google.com/sdk/docs/install" in check.fix
    assert judge_gcloud(CloudSdk(Path("/sdk"))).ok


def _sdk(root: Path, *, managed: bool) -> CloudSdk:
    config = root / "lib" / "googlecloudsdk" / "core" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"disable_updater": managed}))
    return CloudSdk(root)


def test_missing_component_of_a_standalone_cli_is_installed_with_gcloud(tmp_path: Path) -> None:
    sdk = _sdk(tmp_path, managed=False)
    bigtable = judge_component(BIGTABLE_COMPONENT, sdk, installed=False, package_manager="apt")
    pubsub = judge_component(PUBSUB_COMPONENT, sdk, installed=False, package_manager="apt")
    assert bigtable.problem and pubsub.problem
    assert bigtable.fix == "gcloud components install beta bigtable"
    assert pubsub.fix == "gcloud components install beta pubsub-emulator"
    assert str(tmp_path / "platform" / "bigtable-emulator" / "cbtemulator") in bigtable.found


def test_missing_component_of_an_apt_installed_cli_is_an_apt_package(tmp_path: Path) -> None:
    sdk = _sdk(tmp_path, managed=True)
    bigtable = judge_component(BIGTABLE_COMPONENT, sdk, installed=False, package_manager="apt")
    pubsub = judge_component(PUBSUB_COMPONENT, sdk, installed=False, package_manager="apt")
    assert bigtable.fix == "sudo apt-get install -y google-cloud-cli-bigtable-emulator"
    assert pubsub.fix == "sudo apt-get install -y google-cloud-cli-pubsub-emulator"


def test_missing_component_of_a_dnf_installed_cli_is_a_dnf_package(tmp_path: Path) -> None:
    sdk = _sdk(tmp_path, managed=True)
    check = judge_component(PUBSUB_COMPONENT, sdk, installed=False, package_manager="dnf")
    assert check.fix == "sudo dnf install -y google-cloud-cli-pubsub-emulator"


def test_component_without_a_cli_says_to_install_both() -> None:
    check = judge_component(BIGTABLE_COMPONENT, None, installed=False, package_manager="apt")
    assert check.problem
    assert "https://cloud.google.com/sdk/docs/install" in check.fix
    assert "gcloud components install beta bigtable" in check.fix


def test_check_component_looks_for_the_executable(tmp_path: Path) -> None:
    sdk = _sdk(tmp_path, managed=False)
    assert check_component(BIGTABLE_COMPONENT, sdk).problem
    binary = tmp_path / "platform" / "bigtable-emulator" / "cbtemulator"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    assert check_component(BIGTABLE_COMPONENT, sdk).problem, "present but not executable"
    binary.chmod(0o755)
    assert check_component(BIGTABLE_COMPONENT, sdk).ok


def test_judge_module() -> None:
    assert judge_module("moto", "S3 server", "/site-packages/moto/__init__.py").ok
    missing = judge_module("moto", "S3 server", None)
    assert missing.problem
    assert "pip install -e '.[dev]'" in missing.fix


def _fake_java(folder: Path, version_line: str) -> Path:
    java = folder / "java"
    folder.mkdir(parents=True, exist_ok=True)
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(0o755)
    return java


def test_judge_compiled_core_is_required_only_where_asked() -> None:
    built = judge_compiled_core("/site-packages/hedera_history/_speedups.so", required=True)
    assert built.ok and not built.problem
    missing_in_tests = judge_compiled_core(None, required=True)
    assert missing_in_tests.problem and "gcc python3-dev" in missing_in_tests.fix
    missing_elsewhere = judge_compiled_core(None, required=False)
    assert not missing_elsewhere.ok and not missing_elsewhere.problem
    assert "pure-Python" in missing_elsewhere.found


def test_check_java_runs_the_java_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    java = _fake_java(tmp_path / "bin", 'openjdk version "11.0.22" 2024-01-16')
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert locate_java() == (str(java), "PATH")
    check = check_java()
    assert check.problem
    assert f"Java 11 at {java}" in check.found


def test_check_java_prefers_java_home_like_the_emulator_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_java(tmp_path / "path", 'openjdk version "11.0.22"')
    java = _fake_java(tmp_path / "jdk" / "bin", 'openjdk version "17.0.9" 2023-10-17')
    monkeypatch.setenv("PATH", f"{tmp_path / 'path'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    check = check_java()
    assert check.ok
    assert str(java) in check.found


def test_problems_ignores_passed_and_optional_checks() -> None:
    checks = [
        Check("a", True, "fine"),
        Check("b", False, "gone", "install b"),
        Check("c", False, "gone", "install c", required=False),
    ]
    assert [check.name for check in problems(checks)] == ["b"]


def test_require_names_every_problem_and_its_fix() -> None:
    require("nothing", [Check("a", True, "fine")])
    with pytest.raises(PrerequisiteError) as raised:
        require(
            "the pubsub emulator",
            [
                Check("Java", False, "no java", "install java"),
                Check("CLI", False, "no gcloud", "install gcloud"),
            ],
        )
    message = str(raised.value)
    assert message.startswith("the pubsub emulator cannot start:")
    assert "Java: no java; fix: install java" in message
    assert "CLI: no gcloud; fix: install gcloud" in message
    assert isinstance(raised.value, EmulatorError)
