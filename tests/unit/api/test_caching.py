"""Cache and CORS headers of the query function (api/caching.py)."""

from __future__ import annotations

from hedera_history.api.caching import IMMUTABLE, SHORT, cache_control, entity_tag, matches, preflight_headers


def test_only_a_block_by_number_is_immutable() -> None:
    assert cache_control("GET", "/api/v1/blocks/12", 200) == IMMUTABLE
    assert cache_control("HEAD", "/api/v1/blocks/12", 200) == IMMUTABLE
    assert cache_control("GET", "/api/v1/blocks", 200) == SHORT
    assert cache_control("GET", "/api/v1/blocks/" + "ab" * 48, 200) == SHORT
    assert cache_control("GET", "/api/v1/blocks/12", 404) is None
    assert cache_control("POST", "/", 200) is None


def test_if_none_match() -> None:
    tag = entity_tag(b'{"number": 1}')
    assert tag.startswith('"') and tag == entity_tag(b'{"number": 1}') != entity_tag(b'{"number": 2}')
    assert matches(tag, tag) and matches(f'"x", W/{tag}', tag) and matches("*", tag)
    assert not matches(None, tag) and not matches('"other"', tag)


def test_preflight_allows_the_headers_asked_for() -> None:
    assert preflight_headers(None)["Access-Control-Allow-Origin"] == "*"
    asked = preflight_headers("content-type, x-user")
    assert asked["Access-Control-Allow-Headers"] == "content-type, x-user"
    assert "GET" in asked["Access-Control-Allow-Methods"]
