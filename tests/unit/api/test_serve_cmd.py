"""``hedera-history serve``: the local Flask app (``api.http.local_app``) routes every path to the API."""

from __future__ import annotations

import pytest
from hedera_history.api.http import local_app
from hedera_history.cli.main import COMMANDS


def test_serve_app_answers_without_touching_the_store() -> None:
    assert COMMANDS["serve"] == "hedera_history.cli.serve_cmd:serve"
    client = local_app().test_client()
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/").status_code == 405
    assert client.post("/", data=b"{").get_json()["error"]["code"] == -32700
    assert client.post("/", data=b"x" * ((1 << 20) + 1)).status_code == 413
    assert client.get("/api/v1/blocks/x").status_code == 400
    assert client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": ["x"]}).status_code == 200


def test_a_store_that_cannot_be_reached_is_a_503_not_a_500(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BIGTABLE_EMULATOR_HOST", "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/nonexistent")
    monkeypatch.setenv("CLOUDSDK_CONFIG", "/nonexistent")
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    response = local_app().test_client().get("/api/v1/blocks/1")
    assert response.status_code == 503
    assert b"Traceback" not in response.data
