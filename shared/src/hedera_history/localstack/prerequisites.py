"""What the local stack needs on this machine, and the exact command that installs what is missing.

Each ``check_*`` function looks at one thing and returns a :class:`Check`; the ``judge_*`` functions
hold the decisions as pure functions of what was found, so they are unit tested without touching
the machine. ``hedera-history doctor`` prints :func:`run_checks`; the emulator classes call
:func:`require` before starting anything, so a missing tool fails at once with its fix.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hedera_history.errors import PrerequisiteError
from hedera_history.localstack.cloud_sdk import (
    BIGTABLE_EMULATOR_RELATIVE,
    PUBSUB_EMULATOR_RELATIVE,
    CloudSdk,
    find_cloud_sdk,
)
from hedera_history.speedups import REQUIRE_ENV

MIN_PYTHON = (3, 11)
MIN_JAVA = 17

CLOUD_CLI_INSTALL_PAGE = "https://cloud.google.com/sdk/docs/install"
JAVA_FIX = "sudo apt-get install -y openjdk-17-jre-headless"
DEV_DEPENDENCIES_FIX = "make setup  (or: .venv/bin/python -m pip install -e '.[dev]')"
COMPILED_CORE_FIX = (
    "sudo apt-get install -y gcc python3-dev, then build it again: "
    ".venv/bin/python -m pip install -e '.[dev]'  (or: rm .venv/.installed && make setup)"
)

PackageManager = Literal["apt", "dnf"]


@dataclass(frozen=True)
class Check:
    """The outcome of one check: what was looked for, what was found, and how to fix it."""

    name: str
    ok: bool
    found: str
    fix: str = ""
    required: bool = True

    @property
    def problem(self) -> bool:
        return self.required and not self.ok


@dataclass(frozen=True)
class EmulatorComponent:
    """An emulator shipped with the Cloud CLI."""

    title: str
    relative_path: Path
    gcloud_components: tuple[str, ...]
    system_package: str


BIGTABLE_COMPONENT = EmulatorComponent(
    "Bigtable emulator",
    BIGTABLE_EMULATOR_RELATIVE,
    ("beta", "bigtable"),
    "google-cloud-cli-bigtable-emulator",
)
PUBSUB_COMPONENT = EmulatorComponent(
    "Pub/Sub emulator",
    PUBSUB_EMULATOR_RELATIVE,
    ("beta", "pubsub-emulator"),
    "google-cloud-cli-pubsub-emulator",
)

# ---- pure decisions ------------------------------------------------------------------------------

_JAVA_VERSION = re.compile(r'version "(?P<version>[^"]+)"')


def parse_java_major(version_output: str) -> int | None:
    """The major version in ``java -version`` output (``1.8.0_392`` is 8, ``17.0.15`` is 17)."""
    match = _JAVA_VERSION.search(version_output)
    if match is None:
        return None
    numbers = [int(part) for part in re.findall(r"\d+", match["version"])]
    if not numbers:
        return None
    if numbers[0] == 1 and len(numbers) > 1:
        return numbers[1]
    return numbers[0]


def judge_python(version: tuple[int, ...]) -> Check:
    shown = ".".join(str(part) for part in version[:3])
    wanted = ".".join(str(part) for part in MIN_PYTHON)
    return Check(
        f"Python >= {wanted}",
        tuple(version[:2]) >= MIN_PYTHON,
        f"Python {shown} at {sys.executable}",
        f"install Python {wanted} or newer (e.g. sudo apt-get install -y python3.11 python3.11-venv), "
        "then: make setup PYTHON=python3.11",
    )


def judge_java(java: str | None, version_output: str | None, looked_in: str = "PATH") -> Check:
    """``looked_in``: where ``java`` was searched (PATH, or ``$JAVA_HOME/bin`` when it is set)."""
    name = f"Java >= {MIN_JAVA} (runs the Pub/Sub emulator)"
    fix = JAVA_FIX
    if looked_in != "PATH":
        fix += "  then point JAVA_HOME at it (e.g. /usr/lib/jvm/java-17-openjdk-amd64) or unset JAVA_HOME"
    if java is None:
        return Check(name, False, f"no java in {looked_in}", fix)
    if version_output is None:
        return Check(name, False, f"{java} -version did not run", fix)
    major = parse_java_major(version_output)
    first_line = version_output.strip().splitlines()[0] if version_output.strip() else "(no output)"
    if major is None:
        return Check(name, False, f"{java}: cannot read a version in {first_line!r}", fix)
    if major < MIN_JAVA:
        if looked_in == "PATH":
            fix += "  then make it the default: sudo update-alternatives --config java"
        return Check(name, False, f"Java {major} at {java} ({first_line})", fix)
    return Check(name, True, f"Java {major} at {java} ({first_line})")


def judge_gcloud(sdk: CloudSdk | None) -> Check:
    name = "Google Cloud CLI (gcloud) on PATH"
    if sdk is None:
        fix = f"install the Google Cloud CLI: {CLOUD_CLI_INSTALL_PAGE}"
        return Check(name, False, "gcloud not found", fix)
    return Check(name, True, f"SDK root {sdk.root}")


def judge_component(
    component: EmulatorComponent,
    sdk: CloudSdk | None,
    installed: bool,
    package_manager: PackageManager,
) -> Check:
    name = f"{component.title} component"
    if sdk is None:
        fix = (
            f"install the Google Cloud CLI ({CLOUD_CLI_INSTALL_PAGE}), then: "
            f"{component_install_command(component, None, package_manager)}"
        )
        return Check(name, False, "no Google Cloud CLI", fix)
    path = sdk.root / component.relative_path
    if installed:
        return Check(name, True, str(path))
    return Check(name, False, f"{path} missing", component_install_command(component, sdk, package_manager))


def component_install_command(
    component: EmulatorComponent, sdk: CloudSdk | None, package_manager: PackageManager
) -> str:
    """``gcloud components install ...``, or the system package when apt/dnf manages the CLI."""
    if sdk is not None and sdk.managed_by_package_manager:
        installer = "sudo apt-get install -y" if package_manager == "apt" else "sudo dnf install -y"
        return f"{installer} {component.system_package}"
    return "gcloud components install " + " ".join(component.gcloud_components)


def judge_module(module: str, purpose: str, found_at: str | None) -> Check:
    name = f"Python package {module} ({purpose})"
    if found_at is None:
        return Check(name, False, "not importable", DEV_DEPENDENCIES_FIX)
    return Check(name, True, found_at)


def judge_compiled_core(found_at: str | None, required: bool) -> Check:
    """The compiled core (``hedera_history._speedups``) is built where a C compiler and the Python
    headers were there at install; without it the pure-Python code runs, slower. Required only where
    ``speedups.REQUIRE_ENV`` says so (``make test``)."""
    name = "compiled core (hedera_history._speedups, needs gcc and the Python headers at install)"
    if found_at is None:
        return Check(name, False, "not built: the pure-Python code runs instead, slower", COMPILED_CORE_FIX, required)
    return Check(name, True, found_at, required=required)


# ---- looking at the machine ----------------------------------------------------------------------


def locate_java() -> tuple[str | None, str]:
    """The java the Pub/Sub emulator's launcher will run, and where it was looked for: the
    launcher prefers ``$JAVA_HOME/bin/java`` when JAVA_HOME is set, else the one on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        found = str(candidate) if os.access(candidate, os.X_OK) else None
        return found, f"$JAVA_HOME/bin (JAVA_HOME={java_home})"
    return shutil.which("java"), "PATH"


def java_version_output(java: str) -> str | None:
    """What ``java -version`` prints (it writes to stderr), or None when it does not run."""
    try:
        answer = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return answer.stderr + answer.stdout


def detect_package_manager() -> PackageManager:
    if shutil.which("dpkg-query") is None and shutil.which("rpm") is not None:
        return "dnf"
    return "apt"


def check_python() -> Check:
    return judge_python(tuple(sys.version_info[:3]))


def check_java() -> Check:
    java, looked_in = locate_java()
    return judge_java(java, java_version_output(java) if java else None, looked_in)


def check_gcloud(sdk: CloudSdk | None) -> Check:
    return judge_gcloud(sdk)


def check_component(component: EmulatorComponent, sdk: CloudSdk | None) -> Check:
    installed = sdk is not None and os.access(sdk.root / component.relative_path, os.X_OK)
    return judge_component(component, sdk, installed, detect_package_manager())


def check_module(module: str, purpose: str) -> Check:
    spec = importlib.util.find_spec(module)
    found_at = (spec.origin or module) if spec is not None else None
    return judge_module(module, purpose, found_at)


def check_compiled_core() -> Check:
    spec = importlib.util.find_spec("hedera_history._speedups")
    return judge_compiled_core(spec.origin if spec is not None else None, os.environ.get(REQUIRE_ENV) == "1")


def run_checks() -> list[Check]:
    """Every check ``hedera-history doctor`` reports, in a stable order."""
    sdk = find_cloud_sdk()
    return [
        check_python(),
        check_java(),
        check_gcloud(sdk),
        check_component(BIGTABLE_COMPONENT, sdk),
        check_component(PUBSUB_COMPONENT, sdk),
        check_module("gcp_storage_emulator", "GCS emulator"),
        check_module("moto", "S3 server"),
        check_compiled_core(),
    ]


def problems(checks: Iterable[Check]) -> list[Check]:
    """The required checks that failed."""
    return [check for check in checks if check.problem]


def require(service: str, checks: Iterable[Check]) -> None:
    """Raise :class:`PrerequisiteError` naming every failed check and its fix."""
    failed = problems(checks)
    if failed:
        lines = [f"{service} cannot start:"]
        lines += [f"  - {check.name}: {check.found}; fix: {check.fix}" for check in failed]
        raise PrerequisiteError("\n".join(lines))
