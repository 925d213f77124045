"""Address books with endpoints (``GeneratorConfig.node_endpoints``) loaded through ``load``:
``/network/nodes`` answers every node's service endpoints, certificate hash and description as the
book in force holds them (the rotated key's book, from the block after its update), each answer
valid against the reference OpenAPI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.books import ENDPOINT_PORTS
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator
PREFIX = "endpoints_"
CONFIG = GeneratorConfig(nodes=4, periods=4, transactions=20, seed=7, node_endpoints=True)


def test_network_nodes_carry_the_books_endpoints(bigtable_instance: Any, tmp_path: Path) -> None:
    stream = generate_stream(CONFIG)
    write_stream(stream, tmp_path)
    args = ["load", str(tmp_path), "--address-book", str(tmp_path / "address-book.bin")]
    args += ["--instance", bigtable_instance.instance_id, "--table-prefix", PREFIX]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    book = hapi.NodeAddressBook.FromString(stream.address_books[-1].book)
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix=PREFIX))
    try:
        client = query_app(HistoryReader(gateway)).test_client()
        contract = ReferenceContract(load_reference_document())
        nodes = checked_get(client, contract, "/api/v1/network/nodes?limit=25")["nodes"]
    finally:
        gateway.close()
    assert [n["node_id"] for n in nodes] == [a.nodeId for a in book.nodeAddress]
    for node, address in zip(nodes, book.nodeAddress, strict=True):
        ip = ".".join(str(b) for b in address.serviceEndpoint[0].ipAddressV4)
        assert [(e["ip_address_v4"], e["port"]) for e in node["service_endpoints"]] == [
            (ip, port) for port in ENDPOINT_PORTS
        ]
        assert node["node_cert_hash"] == "0x" + address.nodeCertHash.decode()
        assert node["description"] == address.description
        assert node["public_key"] == "0x" + address.RSA_PubKey
