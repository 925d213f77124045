"""The function entry points, in process through functions-framework, on requests that need no cloud."""

from __future__ import annotations

import json
import re
from pathlib import Path

import functions_framework
import pytest
from hedera_history.deploy.catalogue import FUNCTIONS, FunctionSpec, Trigger

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("spec", FUNCTIONS, ids=lambda spec: spec.name)
def test_every_declared_entry_point_exists(spec: FunctionSpec) -> None:
    source = (ROOT / spec.source / "main.py").read_text()
    decorator = "cloud_event" if spec.trigger is Trigger.STORAGE_FINALIZED else "http"
    # functions-framework's decorator first (it registers what the others return), then e.g. traced_http
    assert re.search(rf"@functions_framework\.{decorator}\n(@\w+\n)*def {spec.entry_point}\(", source)


def test_ingest_ignores_an_object_that_is_not_a_stream_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEDERA_HISTORY_ADDRESS_BOOK", "/nonexistent")  # never read for an ignored object
    app = functions_framework.create_app("ingest", str(ROOT / "functions/ingest/main.py"), "cloudevent")
    headers = {
        "ce-id": "1",
        "ce-source": "//storage.googleapis.com/projects/_/buckets/b",
        "ce-specversion": "1.0",
        "ce-type": "google.cloud.storage.object.v1.finalized",
        "Content-Type": "application/json",
    }
    body = {"bucket": "b", "name": "notes/readme.txt", "generation": "1"}
    response = app.test_client().post("/", headers=headers, data=json.dumps(body))
    assert response.status_code == 200


def test_store_refuses_an_undecodable_delivery_with_a_4xx() -> None:
    app = functions_framework.create_app("store", str(ROOT / "functions/store/main.py"))
    response = app.test_client().post("/", data=b"not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert "error" in response.get_json()
