"""Where the Google Cloud CLI and its emulator components are installed.

The emulators are run straight from the CLI's ``platform/`` folder instead of through
``gcloud beta emulators ... start``: the wrapper adds seconds of start-up and, when killed, leaves
the emulator running.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

BIGTABLE_EMULATOR_RELATIVE = Path("platform/bigtable-emulator/cbtemulator")
PUBSUB_EMULATOR_RELATIVE = Path("platform/pubsub-emulator/bin/cloud-pubsub-emulator")
_UPDATER_CONFIG_RELATIVE = Path("lib/googlecloudsdk/core/config.json")


@dataclass(frozen=True)
class CloudSdk:
    """An installed Cloud CLI."""

    root: Path

    @property
    def bigtable_emulator(self) -> Path:
        """The Bigtable emulator binary (a self-contained executable; no Java needed)."""
        return self.root / BIGTABLE_EMULATOR_RELATIVE

    @property
    def pubsub_emulator(self) -> Path:
        """The Pub/Sub emulator launcher (a shell script that runs a Java jar)."""
        return self.root / PUBSUB_EMULATOR_RELATIVE

    @property
    def managed_by_package_manager(self) -> bool:
        """True when the CLI came from apt/dnf: its component manager is disabled, so components
        are installed as system packages instead of with ``gcloud components install``."""
        try:
            config = json.loads((self.root / _UPDATER_CONFIG_RELATIVE).read_text())
        except (OSError, ValueError):
            return False
        return isinstance(config, dict) and config.get("disable_updater") is True


def find_cloud_sdk() -> CloudSdk | None:
    """The Cloud CLI that ``gcloud`` on PATH belongs to, or None when there is none."""
    gcloud = shutil.which("gcloud")
    if gcloud is None:
        return None
    # <root>/bin/gcloud, usually reached through a symlink such as /usr/bin/gcloud.
    candidate = Path(gcloud).resolve().parent.parent
    if (candidate / "platform").is_dir() or (candidate / "lib" / "googlecloudsdk").is_dir():
        return CloudSdk(candidate)
    return _ask_gcloud_for_root(gcloud)


def _ask_gcloud_for_root(gcloud: str) -> CloudSdk | None:
    try:
        answer = subprocess.run(
            [gcloud, "info", "--format=value(installation.sdk_root)"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    root = answer.stdout.strip()
    return CloudSdk(Path(root)) if root else None
