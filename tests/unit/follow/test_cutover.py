"""The cutover rule: when the follower asks for the next block and when a block found switches it,
from the HAPI versions of the last record file and of the block (``follow.cutover``)."""

from __future__ import annotations

import pytest
from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.follow.cutover import CutoverRule, parse_hapi_version

PINNED = CutoverRule((0, 79, 0))
UNKNOWN = CutoverRule(None)


@pytest.mark.parametrize(
    ("text", "version"), [("0.79.0", (0, 79, 0)), ("0.80", (0, 80, 0)), ("", None), ("none", None)]
)
def test_versions_are_read_as_major_minor_patch(text: str, version: tuple[int, int, int] | None) -> None:
    assert parse_hapi_version(text) == version


def test_a_malformed_version_names_the_setting() -> None:
    with pytest.raises(ConfigError, match="HEDERA_HISTORY_FOLLOW_CUTOVER_HAPI_VERSION"):
        parse_hapi_version("v0.79")


def test_the_presets_pin_the_last_record_release_and_custom_networks_do_not() -> None:
    assert Settings.from_env({}, network="mainnet").follow_cutover_hapi_version == "0.79.0"
    assert Settings.from_env({}, network="testnet").follow_cutover_hapi_version == "0.79.0"
    assert Settings.from_env({}, network="custom").follow_cutover_hapi_version == ""


def test_at_the_last_record_release_the_follower_asks_at_once_below_it_only_when_quiet() -> None:
    assert PINNED.ask_now((0, 79, 0), quiet=False)
    assert PINNED.ask_now((0, 80, 1), quiet=False)
    assert not PINNED.ask_now((0, 78, 2), quiet=False)
    assert PINNED.ask_now((0, 78, 2), quiet=True)
    assert not UNKNOWN.ask_now((0, 79, 0), quiet=False), "without a pinned release only the quiet interval asks"
    assert not PINNED.ask_now(None, quiet=False), "nor without the last record file's version"


def test_a_block_of_a_later_release_switches_at_once() -> None:
    assert PINNED.switch((0, 79, 0), (0, 80, 0), quiet=False) is None
    assert PINNED.switch((0, 78, 0), (0, 80, 0), quiet=True) is None, "an upgrade straight past the pinned release"


def test_a_wrapped_record_block_switches_only_when_the_record_files_stopped_at_the_last_release() -> None:
    assert PINNED.switch((0, 79, 0), (0, 79, 0), quiet=False) is not None
    assert PINNED.switch((0, 79, 0), (0, 79, 0), quiet=True) is None
    below = PINNED.switch((0, 78, 0), (0, 78, 0), quiet=True)
    assert below is not None and "before the last release writing record files" in below


def test_a_block_that_does_not_parse_switches_only_a_quiet_follower_at_the_last_release() -> None:
    """Garbage under the next block's name says nothing of the release: a network below the pinned
    one, or whose record files still come, is not left for it (ingest rejects it once switched)."""
    below = PINNED.switch((0, 56, 0), None, quiet=True)
    assert below is not None and "the block does not parse" in below
    assert PINNED.switch((0, 79, 0), None, quiet=False) is not None
    assert PINNED.switch((0, 79, 0), None, quiet=True) is None
    assert UNKNOWN.switch((0, 56, 0), None, quiet=True) is None, "without a pinned release, as any block found"


def test_without_versions_a_block_found_switches_as_before() -> None:
    assert UNKNOWN.switch((0, 56, 0), (0, 56, 0), quiet=True) is None
    assert PINNED.switch(None, (0, 56, 0), quiet=True) is None
