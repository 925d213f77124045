"""The client harness's own logic (``bench.clients``): recorded requests in terms of their targets,
and each call's verdict against the routes we serve."""

from __future__ import annotations

from bench.clients.outcomes import CLIENT_SIDE, Outcome, failed
from bench.clients.placeholders import generalise, instantiate

FOUND = {
    "base_url": "http://127.0.0.1:5551",
    "account": "0.0.2",
    "account_evm_address": "0x0000000000000000000000000000000000000002",
    "last_timestamp": "1657701971.304284004",
    "account_created_in_history": False,
}
OTHER = {**FOUND, "account": "0.0.1023", "account_evm_address": "0x" + "0" * 37 + "3ff"}


def test_a_request_names_its_targets_and_replays_on_another_history() -> None:
    request = "/api/v1/accounts/0.0.2/allowances/tokens?limit=2&timestamp=lte:1657701971.304284004&account.id=0.0.2"
    general = generalise(request, FOUND)
    assert general == (
        "/api/v1/accounts/{account}/allowances/tokens?limit=2&timestamp=lte:{last_timestamp}&account.id={account}"
    )
    assert instantiate(general, FOUND) == request
    assert instantiate(general, OTHER).startswith("/api/v1/accounts/0.0.1023/allowances/tokens?limit=2&")


def test_an_entity_number_is_a_target_in_the_path_only() -> None:
    assert generalise("/api/v1/accounts/2?limit=2", FOUND) == "/api/v1/accounts/{account:num}?limit=2"
    assert generalise("/api/v1/accounts/" + "0" * 39 + "2", FOUND) == "/api/v1/accounts/{account_evm_address:hex}"
    assert instantiate("/api/v1/accounts/{account:num}?limit=2", OTHER) == "/api/v1/accounts/1023?limit=2"


def outcome(method: str, route: str, ok: bool | None) -> Outcome:
    return Outcome("h", "c", "call()", method, route, ok, "")


def test_only_a_failed_call_on_a_served_route_fails_the_run() -> None:
    served_failure = outcome("GET", "/api/v1/accounts/{idOrAliasOrEvmAddress}", False)
    verdicts = {
        served_failure: "FAIL",
        outcome("GET", "/api/v1/blocks", True): "pass",
        outcome("POST", "/api/v1/contracts/call", False): "not-served",
        outcome("GET", "/api/v1/smart_contracts", False): "not-served",
        outcome("GET", "/api/v1/topics/{topicId}", None): "skipped",
        outcome("GET", CLIENT_SIDE, False): "FAIL",
    }
    assert {o: o.verdict for o in verdicts} == verdicts
    assert outcome("POST", "/api/v1/contracts/call", False).why_not_served.startswith("an EVM simulation")
    assert outcome("GET", "/api/v1/smart_contracts", False).why_not_served == "not a route of the reference"
    assert failed(list(verdicts)) == [served_failure, outcome("GET", CLIENT_SIDE, False)]
