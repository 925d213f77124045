"""``backfill --network``: the preset's bucket, layout, folder and book (by --start) unless given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli.backfill_cmd import _job
from hedera_history.cli.main import cli
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.networks import NETWORKS


def _params(**changes: Any) -> dict[str, Any]:
    params: dict[str, Any] = dict.fromkeys(
        (
            "source",
            "address_book",
            "first_block",
            "last_block",
            "layout",
            "network",
            "network_folder",
            "block_pin",
            "partitions",
            "periods_per_partition",
            "project",
            "instance",
            "table_prefix",
            "consensus_ratio",
            "start_block",
            "sidecars",
            "requester_pays_project",
            "s3_requester_pays",
        )
    )
    params.update(env=(), reprocess=False, shard=0, start="2019-09-13", end="2019-09-14")
    params.update(changes)
    return params


@pytest.fixture(autouse=True)
def _no_network_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HEDERA_HISTORY_NETWORK", "HEDERA_HISTORY_BLOCK_PIN", "HEDERA_HISTORY_START_BLOCK"):
        monkeypatch.delenv(name, raising=False)


def test_mainnet_fills_in_the_bucket_book_and_pin() -> None:
    job = _job(_params(network="mainnet", project="payer"))
    assert job.source_url == "gs://hedera-mainnet-streams"
    assert job.location.layout is BucketLayout.ACCOUNT
    assert job.book == NETWORKS["mainnet"].bootstrap_book(0).read_bytes()  # 2019: the genesis book
    assert job.settings.block_pin == "1656461547557609267:34305852"
    assert job.settings.requester_pays_project == "payer" and job.settings.s3_requester_pays is True


def test_a_start_after_the_switch_takes_the_newer_book() -> None:
    job = _job(_params(network="mainnet", start="2026-02-01", end="2026-02-02"))
    assert job.book == NETWORKS["mainnet"].bootstrap_book(None).read_bytes()


def test_given_values_win_and_the_node_id_folder_is_the_networks_name(tmp_path: Path) -> None:
    job = _job(_params(network="testnet", source=str(tmp_path), layout="node-id", start_block=7))
    assert job.source_url == str(tmp_path)
    assert (job.location.layout, job.location.network) == (BucketLayout.NODE_ID, "testnet")
    assert job.settings.block_pin == "" and job.settings.start_block == 7


def test_without_a_preset_source_and_node_id_folder_are_needed(tmp_path: Path) -> None:
    book = str(tmp_path / "none.bin")
    base = ["backfill", "run", "--address-book", book, "--start", "2024-06-01", "--end", "2024-06-02"]
    result = CliRunner().invoke(cli, base)
    assert result.exit_code == 2 and "SOURCE is needed" in result.output
    result = CliRunner().invoke(cli, [*base, str(tmp_path), "--layout", "node-id"])
    assert result.exit_code == 2 and "--network-folder" in result.output
