from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.localstack.cloud_sdk import CloudSdk, find_cloud_sdk


def _install_fake_cli(root: Path) -> Path:
    gcloud = root / "bin" / "gcloud"
    gcloud.parent.mkdir(parents=True)
    gcloud.write_text("#!/bin/sh\nexit 3\n")
    gcloud.chmod(0o755)
    (root / "platform").mkdir()
    return gcloud


def test_finds_the_root_through_a_symlinked_gcloud(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gcloud = _install_fake_cli(tmp_path / "google-cloud-sdk")
    on_path = tmp_path / "usr-bin"
    on_path.mkdir()
    (on_path / "gcloud").symlink_to(gcloud)
    monkeypatch.setenv("PATH", str(on_path))

    sdk = find_cloud_sdk()

    assert sdk == CloudSdk((tmp_path / "google-cloud-sdk").resolve())
    assert sdk.bigtable_emulator == sdk.root / "platform" / "bigtable-emulator" / "cbtemulator"
    assert sdk.pubsub_emulator == sdk.root / "platform" / "pubsub-emulator" / "bin" / "cloud-pubsub-emulator"


def test_no_gcloud_on_path_means_no_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_cloud_sdk() is None


def test_a_gcloud_outside_an_sdk_tree_that_cannot_answer_means_no_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gcloud = tmp_path / "gcloud"
    gcloud.write_text("#!/bin/sh\nexit 3\n")
    gcloud.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_cloud_sdk() is None


@pytest.mark.parametrize(
    ("config", "managed"),
    [
        ('{"disable_updater": true, "version": "528.0.0"}', True),
        ('{"disable_updater": false}', False),
        ('{"version": "528.0.0"}', False),
        ("not json", False),
        (None, False),
    ],
)
def test_managed_by_package_manager(tmp_path: Path, config: str | None, managed: bool) -> None:
    if config is not None:
        path = tmp_path / "lib" / "googlecloudsdk" / "core" / "config.json"
        path.parent.mkdir(parents=True)
        path.write_text(config)
    assert CloudSdk(tmp_path).managed_by_package_manager is managed
