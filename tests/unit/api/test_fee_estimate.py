"""``POST /api/v1/network/fees``, the reference's fee estimate of a HAPI transaction (hiero-sdk-python's
``FeeEstimateQuery`` posts there): a 501 in the reference's error shape with the reason, never a
405, as for any reference route history cannot answer; other methods there stay a 405."""

from __future__ import annotations

from hedera_history import hapi
from hedera_history.api import handle
from hedera_history.api.reference_routes import NOT_SERVED_METHODS, SERVED
from hedera_history.store.reader import HistoryReader


def no_reader() -> HistoryReader:
    raise AssertionError("a refused method must not read the store")


def test_a_fee_estimate_is_refused_with_its_reason() -> None:
    transaction = hapi.Transaction(signedTransactionBytes=b"\x0a\x00").SerializeToString()
    for path in ("/api/v1/network/fees", "/api/v1/network/fees/"):
        answer = handle(no_reader, "POST", path, {"mode": ["INTRINSIC"], "high_volume_throttle": ["0"]}, transaction)
        assert answer.status == 501
        assert isinstance(answer.body, dict)
        (message,) = answer.body["_status"]["messages"]
        assert message["message"].startswith("not served from history: a fee estimate of a transaction")


def test_other_methods_on_a_served_route_stay_not_allowed() -> None:
    assert handle(no_reader, "PUT", "/api/v1/network/fees", {}, b"").status == 405
    assert handle(no_reader, "POST", "/api/v1/network/exchangerate", {}, b"").status == 405


def test_every_refused_method_is_on_a_route_served_by_get() -> None:
    assert {path for _, path in NOT_SERVED_METHODS} <= set(SERVED)
