"""The table grants hold in practice: on the emulators, each function runs with a gateway that
refuses what its service account would be refused in the cloud (a table it did not declare, a
write to a table it only reads), and a generated stream still goes through ingest, store, the
sweep and the query API to complete, queryable blocks without one refusal."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import cast

import pytest
from hedera_history.api.app import handle
from hedera_history.api.proofs import ProofSettings
from hedera_history.deploy.contracts import table_access
from hedera_history.errors import StoreError
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.tamper import tamper
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.runtime import build_ingest_context, build_store_context
from hedera_history.pipeline.sweep import sweep
from hedera_history.store import schema as s
from hedera_history.store.bigtable_client import BigtableDataGateway
from hedera_history.store.gateway import CellSwap, MutationFailure, RowQuery, StoredRow
from hedera_history.store.model import Row
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import TableAccess

from tests.integration.pipeline.harness import Pipeline

pytestmark = [pytest.mark.emulator]


class GrantedGateway:
    """A gateway holding only one identity's table grants: it records and refuses the rest."""

    def __init__(self, inner: BigtableDataGateway, identity: str, access: TableAccess) -> None:
        self.inner, self.identity, self.access = inner, identity, access
        self.refused: list[str] = []

    def _allow(self, table: str, write: bool) -> None:
        if table in (self.access.writes if write else self.access.tables):
            return
        what = f"{self.identity} may not {'write' if write else 'read'} {table}"
        self.refused.append(what)
        raise StoreError(f"permission denied: {what}")

    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        self._allow(table, write=True)
        return self.inner.mutate_rows(table, rows)

    def delete_rows(self, table: str, keys: Sequence[bytes]) -> None:
        self._allow(table, write=True)
        self.inner.delete_rows(table, keys)

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        self._allow(table, write=False)
        return self.inner.read_rows(table, query)

    def check_and_set(self, table: str, key: bytes, swap: CellSwap) -> bool:
        self._allow(table, write=True)
        return self.inner.check_and_set(table, key, swap)

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=4, transactions=16, sidecars=True, seed=13))


def granted(pipeline: Pipeline, identity: str) -> GrantedGateway:
    return GrantedGateway(pipeline.gateway, identity, table_access()[identity])


def test_the_guard_refuses_what_an_identity_was_not_granted(pipeline: Pipeline) -> None:
    query = granted(pipeline, "query")
    with pytest.raises(StoreError, match="query may not write blocks"):
        query.mutate_rows(s.BLOCKS, [])
    with pytest.raises(StoreError, match="query may not read quarantine"):
        list(query.read_rows(s.QUARANTINE, RowQuery(keys=(b"x",))))
    with pytest.raises(StoreError, match="query may not write ingest_progress"):
        query.mutate_rows(s.INGEST_PROGRESS, [])


def test_each_function_gets_by_with_its_declared_tables(pipeline: Pipeline, stream: GeneratedStream) -> None:
    settings = pipeline.settings
    guards = {name: granted(pipeline, name) for name in ("ingest", "sweep", "store", "query")}
    # The harness's contexts share one unrestricted gateway: each function gets its own here.
    pipeline.ingest.publisher.close()  # type: ignore[attr-defined]
    bucket = pipeline.bucket.name
    pipeline.ingest = build_ingest_context(settings, bucket, gateway=cast(BigtableDataGateway, guards["ingest"]))
    sweeping = build_ingest_context(settings, bucket, gateway=cast(BigtableDataGateway, guards["sweep"]))
    pipeline.store = build_store_context(settings, gateway=cast(BigtableDataGateway, guards["store"]))
    try:
        rng = random.Random(3)
        # one node's copy of one period damaged and signed as it is: quarantined, copy created
        tampered = tamper(stream, stream.nodes[1].account, 1, resign=True)
        for name in pipeline.upload(dict(tampered.objects), rng):
            ingest_object(pipeline.ingest, name)
        pipeline.drain(rng)
        sweep(sweeping)
        pipeline.drain(rng)

        assert pipeline.ingest.state.quarantined()
        assert list((Path(settings.quarantine_url)).rglob("*.rcd*"))

        reader = HistoryReader(cast(BigtableDataGateway, guards["query"]))
        numbers = [b["number"] for b in stream.truth["blocks"]]
        assert reader.complete_blocks(numbers) == set(numbers)
        calls = [
            ("POST", "/", {"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": [numbers[1]]}),
            ("POST", "/", {"jsonrpc": "2.0", "id": 2, "method": "getBlocks", "params": [0, numbers[-1]]}),
            (
                "POST",
                "/",
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "getTransaction",
                    "params": [stream.truth["transactions"][0]["hash"]],
                },
            ),
            ("GET", f"/api/v1/blocks/{numbers[-1]}", None),
            ("GET", f"/api/v1/transactions/{stream.truth['transactions'][0]['transaction_id_string']}", None),
            ("GET", f"/api/v1/accounts/{stream.truth['transactions'][0]['payer']}/transactions", None),
            ("GET", "/api/v1/status", None),  # the follower's position, in ingest_progress
            # proofs: the blocks and the address-book history of their trust chain
            ("GET", f"/api/v1/blocks/{numbers[-1]}/proof", None),
            (
                "GET",
                f"/api/v1/transactions/{stream.truth['transactions'][0]['transaction_id_string']}/stateproof",
                None,
            ),
            ("POST", "/", {"jsonrpc": "2.0", "id": 4, "method": "getBlockProof", "params": [numbers[1]]}),
        ]
        proofs = ProofSettings(stream.address_book)
        for method, path, body in calls:
            answer = handle(
                lambda: reader,
                method,
                path,
                {},
                json.dumps(body).encode() if body else b"",
                proofs=lambda: proofs,
            )
            assert answer.status == 200, (path, answer.body)
            assert "error" not in (answer.body or {}), (path, answer.body)
    finally:
        sweeping.publisher.close()  # type: ignore[attr-defined]
    assert {name: guard.refused for name, guard in guards.items()} == {name: [] for name in guards}
