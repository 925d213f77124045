"""Where deployment inputs and outputs live in the repository."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hedera_history.errors import ConfigError

INFRA_DIR = Path("infra")
ENVIRONMENTS_DIR = INFRA_DIR / "environments"
BUILD_DIR = Path("build")
WHEEL_DIR = BUILD_DIR / "dist"
FUNCTIONS_BUILD_DIR = BUILD_DIR / "functions"
"""Matches ``function_archive_dir`` in ``infra/variables.tf`` (relative to ``infra/``)."""
PLANS_DIR = BUILD_DIR / "plans"


def repository_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: the working directory) holding
    ``pyproject.toml`` and ``infra/``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file() and (folder / INFRA_DIR).is_dir():
            return folder
    raise ConfigError(f"no repository with pyproject.toml and infra/ at or above {here}")


@dataclass(frozen=True, slots=True)
class Environment:
    """A deployment target: ``infra/environments/<name>.tfvars`` and its state backend."""

    name: str
    var_file: Path
    backend_config: Path | None
    """``<name>.backend.hcl`` (bucket and prefix of the state), when the environment has one."""


def environment_names(root: Path) -> list[str]:
    return sorted(path.name.removesuffix(".tfvars") for path in (root / ENVIRONMENTS_DIR).glob("*.tfvars"))


def environment(root: Path, name: str) -> Environment:
    var_file = root / ENVIRONMENTS_DIR / f"{name}.tfvars"
    if not var_file.is_file():
        known = ", ".join(environment_names(root)) or "none"
        raise ConfigError(f"unknown environment {name!r} (known: {known})", file=str(var_file))
    backend = root / ENVIRONMENTS_DIR / f"{name}.backend.hcl"
    return Environment(name, var_file, backend if backend.is_file() else None)
