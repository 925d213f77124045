from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hedera_history.books.bootstrap import SHIPPED_DIR
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.networks import NETWORKS, network_named
from hedera_history.networks.block_numbers import BlockPin

# Values from the mirror node (ImporterProperties.HederaNetwork, BlockNumberMigration); docs/networks.md.
BUCKETS = {
    "mainnet": "hedera-mainnet-streams",
    "testnet": "hedera-testnet-streams-2024-02",
    "previewnet": "hedera-preview-testnet-streams",
    "demo": "hedera-demo-streams",
}


def test_every_public_network_has_its_bucket_and_account_layout() -> None:
    assert {name: network.bucket for name, network in NETWORKS.items()} == BUCKETS
    for network in NETWORKS.values():
        assert network.layout is BucketLayout.ACCOUNT
        assert network.node_id_folder == network.name
        assert network.requester_pays is (network.name != "demo")
        assert network.anonymous is (network.name == "demo")


def test_pins_are_the_mirror_nodes() -> None:
    assert NETWORKS["mainnet"].pin == BlockPin(1656461547557609267, 34305852)
    assert NETWORKS["testnet"].pin == BlockPin(1656461617493248000, 22384256)
    assert NETWORKS["previewnet"].pin is None
    assert NETWORKS["demo"].pin is None


def test_packaged_books_parse_and_equal_the_reference_copies(hedera_data: Path) -> None:
    for network in NETWORKS.values():
        for path in network.packaged_books():
            data = path.read_bytes()
            assert parse_address_book(data, path.name).nodes
            reference = hedera_data / "addressbook" / f"main-resources-{path.stem}.bin"
            assert hashlib.sha256(data).digest() == hashlib.sha256(reference.read_bytes()).digest()
    assert (SHIPPED_DIR / "README.md").is_file()


def test_bootstrap_book_switches_at_its_time_as_the_mirror_node() -> None:
    mainnet = NETWORKS["mainnet"]
    switch = 1769623200803405897
    assert mainnet.bootstrap_book(0).name == "mainnet.bin"
    assert mainnet.bootstrap_book(switch - 1).name == "mainnet.bin"
    assert mainnet.bootstrap_book(switch).name == "mainnet-1769623200803405897.bin"
    assert mainnet.bootstrap_book(None).name == "mainnet-1769623200803405897.bin"
    assert NETWORKS["previewnet"].bootstrap_book(None).name == "previewnet.bin"


def test_custom_presets_nothing_and_unknown_names_are_refused() -> None:
    assert network_named("custom") is None
    assert network_named("MainNet") is NETWORKS["mainnet"]
    with pytest.raises(ConfigError, match="unknown network"):
        network_named("moonnet")
    with pytest.raises(ConfigError, match="unknown network"):
        Settings.from_env({"HEDERA_HISTORY_NETWORK": "moonnet"})


def test_default_settings_keep_todays_behaviour() -> None:
    settings = Settings.from_env({})
    assert settings.network == "custom"
    assert (settings.stream_bucket, settings.address_book, settings.block_pin) == ("hedera-streams", "", "")
    assert settings.s3_requester_pays is False and settings.s3_anonymous is False


def test_a_preset_fills_in_what_was_not_set() -> None:
    settings = Settings.from_env({"HEDERA_HISTORY_NETWORK": "mainnet", "GOOGLE_CLOUD_PROJECT": "payer"})
    assert settings.stream_bucket == "hedera-mainnet-streams"
    assert settings.stream_prefix == ""
    assert Path(settings.address_book) == NETWORKS["mainnet"].bootstrap_book(None)
    assert settings.block_pin == "1656461547557609267:34305852"
    assert settings.s3_requester_pays is True and settings.s3_anonymous is False
    assert settings.requester_pays_project == "payer"

    demo = Settings.from_env({}, network="demo")
    assert demo.stream_bucket == "hedera-demo-streams"
    assert demo.s3_anonymous is True and demo.s3_requester_pays is False
    assert demo.requester_pays_project == "" and demo.block_pin == ""


def test_explicit_values_win_over_the_preset() -> None:
    env = {
        "HEDERA_HISTORY_NETWORK": "mainnet",
        "HEDERA_HISTORY_STREAM_BUCKET": "my-copy",
        "HEDERA_HISTORY_ADDRESS_BOOK": "/books/mine.bin",
        "HEDERA_HISTORY_S3_REQUESTER_PAYS": "false",
    }
    settings = Settings.from_env(env, requester_pays_project="other")
    assert settings.stream_bucket == "my-copy"
    assert settings.address_book == "/books/mine.bin"
    assert settings.s3_requester_pays is False
    assert settings.requester_pays_project == "other"
    assert Settings.from_env(env, block_pin="5:6").block_pin == "5:6"


def test_an_explicit_start_block_keeps_the_pin_out() -> None:
    settings = Settings.from_env({"HEDERA_HISTORY_NETWORK": "mainnet", "HEDERA_HISTORY_START_BLOCK": "0"})
    assert settings.block_pin == "" and settings.start_block == 0


def test_the_requester_pays_flags_belong_to_the_presets_bucket() -> None:
    env = {"HEDERA_HISTORY_NETWORK": "mainnet", "GOOGLE_CLOUD_PROJECT": "p", "HEDERA_HISTORY_STREAM_BUCKET": "copy"}
    settings = Settings.from_env(env)
    assert settings.s3_requester_pays is False and settings.requester_pays_project == ""
    assert settings.block_pin == "1656461547557609267:34305852"


def test_block_stream_facts_follow_the_reference() -> None:
    """``ImporterProperties.HederaNetwork``: block buckets, and a cutover for mainnet and testnet only."""
    for name, network in NETWORKS.items():
        assert network.block_bucket == f"hedera-{name}-recent-block-streams"
        assert network.block_folder == f"{name}/block/"
        assert network.ledger_id is None
    assert {name for name, network in NETWORKS.items() if network.cutover} == {"mainnet", "testnet"}
    mainnet, testnet = NETWORKS["mainnet"].cutover, NETWORKS["testnet"].cutover
    assert mainnet is not None and testnet is not None
    assert mainnet.after_hapi_version == testnet.after_hapi_version == (0, 79, 0)
    assert (testnet.planned_utc, mainnet.planned_utc) == ("2026-11-25", "2026-12-09")
