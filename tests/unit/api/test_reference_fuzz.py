"""Property-based run of the reference mirror node's parameter space (its OpenAPI, through
schemathesis) against our query app in process: on every route we serve, valid and invalid
inputs alike, no answer is a server error. 501 is the documented "not served from history"
answer (a block hash, an account alias), not a failure.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hedera_history.api.reference_routes import SERVED
from hedera_history.config import Settings
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from tests.integration.api.reference_contract import load_reference_document
from tests.unit.api.wsgi_app import query_app
from tests.unit.store.builders import BASE_NS, NS, make_block, transfer_tx
from tests.unit.store.fakes import MemoryGateway

EXAMPLES = 150
"""Cases per generation mode: about 10 s on a busy 2-core machine."""
NOT_SERVED = 501


def _reader() -> HistoryReader:
    gateway = MemoryGateway()
    blocks = [
        make_block(n, [transfer_tx(BASE_NS + n * 100 * NS + i, 1001, 5000 + i) for i in range(3)]) for n in range(4)
    ]
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    return HistoryReader(gateway)


SCHEMA = schemathesis.openapi.from_dict(load_reference_document()).include(path=list(SERVED), method="GET")
SCHEMA.app = query_app(_reader())


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_error_on_the_reference_parameter_space(mode: GenerationMode) -> None:
    seen: set[str] = set()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=SCHEMA.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        response = case.call()
        seen.add(case.operation.path)
        assert response.status_code < 500 or response.status_code == NOT_SERVED, (
            case.operation.path,
            case.path_parameters,
            case.query,
            response.status_code,
            response.text[:300],
        )

    run()
    assert seen, "no case was generated"
