"""Each client pinned, installed once in a throwaway environment of its own under the cache folder.

PyPI clients get a virtual environment each (``CACHE/<name>/venv``), the npm client a folder with its
``node_modules`` (``CACHE/<name>``); nothing goes into the project's environment. An environment is
reused while its ``installed.txt`` names the same pin; delete the folder to install again.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

REPOSITORY = Path(__file__).resolve().parents[2]
CALLS = Path(__file__).resolve().parent / "calls"
MARKER = "installed.txt"


@dataclass(frozen=True)
class ClientSpec:
    name: str
    registry: Literal["pypi", "npm"]
    pin: str
    script: str
    """Its call script under ``calls/``."""


CLIENTS = (
    ClientSpec("hedera-mirror-sdk", "pypi", "hedera-mirror-sdk==0.0.6", "mirror_sdk.py"),
    ClientSpec("hedera-agent-kit", "pypi", "hedera-agent-kit==3.4.2", "agent_kit.py"),
    ClientSpec("hiero-sdk-python", "pypi", "hiero-sdk-python==0.3.0", "hiero_sdk.py"),
    ClientSpec("@hashgraph/sdk", "npm", "@hashgraph/sdk@2.81.0", "js_sdk.cjs"),
)


def folder(spec: ClientSpec, cache: Path) -> Path:
    return cache / spec.name.replace("@", "").replace("/", "-")


def install(spec: ClientSpec, cache: Path, log: Path) -> None:
    """Install ``spec`` under ``cache`` unless its pin is there already; output goes to ``log``."""
    home = folder(spec, cache)
    marker = home / MARKER
    if marker.is_file() and marker.read_text().strip() == spec.pin:
        return
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    if spec.registry == "pypi":
        steps = [
            [sys.executable, "-m", "venv", str(home / "venv")],
            [str(home / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", spec.pin],
        ]
    else:
        (home / "package.json").write_text('{"name": "hedera-history-client", "private": true}\n')
        steps = [["npm", "install", "--no-audit", "--no-fund", "--prefix", str(home), spec.pin]]
    with log.open("a") as out:
        for step in steps:
            subprocess.run(step, check=True, stdout=out, stderr=subprocess.STDOUT, cwd=home)
    marker.write_text(spec.pin + "\n")


def command(spec: ClientSpec, cache: Path, targets_file: Path) -> list[str]:
    """The argv that runs the client's calls against the targets in ``targets_file``, from the
    repository root (a Python call script is a module of this package, run by the client's Python)."""
    home = folder(spec, cache)
    if spec.registry == "pypi":
        module = f"{__package__}.calls.{spec.script.removesuffix('.py')}"
        return [str(home / "venv" / "bin" / "python"), "-m", module, str(targets_file)]
    return ["node", str(CALLS / spec.script), str(targets_file), str(home / "node_modules")]
