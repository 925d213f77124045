"""The requests four real mirror-node clients made (``python -m bench.clients --record``: the JS SDK,
hiero-sdk-python, hedera-agent-kit and hedera-mirror-sdk, on a generated stream and the real V6 set)
replayed against the query app over the same histories, loaded with ``load`` as the harness loads
them, their ids found as the harness finds them (the recording names what it asked for, not the
ids: ``bench.clients.placeholders``): each answers what it answered the clients (a route not served
then may be served now), and every 200 is valid against the reference's OpenAPI. No client and no
network needed."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from bench.clients.expected import expectations
from bench.clients.history import History, book_nodes, generated, real_v6
from bench.clients.placeholders import instantiate
from bench.clients.targets import find_targets
from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.unit.api.wsgi_app import query_app

pytestmark = [pytest.mark.emulator, pytest.mark.xdist_group("client-requests")]

RECORDED: dict[str, list[dict[str, Any]]] = json.loads(
    Path(__file__).with_name("client_requests.json").read_text(encoding="utf-8")
)
NOT_SERVED = 501


@dataclass
class Served:
    client: Any
    targets: dict[str, Any]


@pytest.fixture(scope="module")
def served(
    bigtable_client: Any, hedera_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Served]]:
    instance = bigtable_client.instance(unique_name("clients"))
    histories: list[History] = [generated(tmp_path_factory.mktemp("clients")), real_v6(hedera_data)]
    apps: dict[str, Served] = {}
    gateways = []
    for index, history in enumerate(histories):
        prefix = f"clients{index}_"
        command = ["load", str(history.directory), "--address-book", str(history.address_book)]
        command += ["--instance", instance.instance_id, "--table-prefix", prefix]
        loaded = CliRunner().invoke(cli, command, catch_exceptions=False)
        assert loaded.exit_code == 0, loaded.output
        gateway = gateway_for_instance(instance, Settings(table_prefix=prefix))
        gateways.append(gateway)
        client = query_app(HistoryReader(gateway)).test_client()

        def get(path: str, client: Any = client) -> Any:
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.data[:300])
            return answer.get_json()

        targets = find_targets(get, *book_nodes(history.address_book))
        if history.truth is not None:
            targets.update(expectations(history.truth, targets["account"]))
        apps[history.name] = Served(client, targets)
    yield apps
    for gateway in gateways:
        gateway.close()
    for table in instance.list_tables():
        with contextlib.suppress(Exception):
            table.delete()


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


@pytest.mark.parametrize("history", sorted(RECORDED))
def test_every_request_a_client_made_answers_as_it_did(
    served: dict[str, Served], contract: ReferenceContract, history: str
) -> None:
    assert RECORDED[history], "the recording holds no request"
    for request in RECORDED[history]:
        method, status = request["method"], request["status"]
        path = instantiate(request["path"], served[history].targets)
        body: dict[str, Any] = {"json": {}} if method == "POST" else {}
        response = served[history].client.open(path, method=method, **body)
        answered = response.status_code
        assert answered == status or (status == NOT_SERVED and answered == 200), (method, path, response.data[:300])
        if answered == 200:
            contract.validate(urlsplit(path).path, 200, response.get_json(), method.lower())


def test_the_generated_recording_resolves_an_evm_address_alias() -> None:
    """The generated history holds accounts created with an EVM-address alias, so the JS SDK's
    ``AccountId.populateAccountNum`` and hiero-sdk-python's ``populate_account_num`` asked for one."""
    assert any(r["path"].startswith("/api/v1/accounts/{alias_evm_address") for r in RECORDED["generated"])
