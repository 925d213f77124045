"""``GeneratorConfig(registered_nodes=True)``: the first native periods create, update and delete
registered nodes on the plan (``gen.registered_nodes``); each native block carries the write as a
state change the follower reads, a create's receipt gets its node id back from the block, and the
truth holds the nodes left; record periods hold none, and a stream without it has none."""

from __future__ import annotations

from hedera_history import hapi
from hedera_history.follow.registered_nodes import RegisteredNodeChange, changes_of
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import PeriodKind

CONFIG = GeneratorConfig(nodes=4, periods=7, transactions=20, seed=3, registered_nodes=True, cutover_after=2)


def test_registered_nodes_in_native_blocks_and_the_truth() -> None:
    stream = generate_stream(CONFIG)
    writes = [t for t in stream.truth["transactions"] if t["type"].startswith("registeredNode")]
    assert [(t["type"], t["block_number"]) for t in writes] == [
        ("registeredNodeCreate", 2),
        ("registeredNodeCreate", 2),
        ("registeredNodeUpdate", 3),
        ("registeredNodeCreate", 3),
        ("registeredNodeDelete", 4),
    ]
    assert sorted(stream.truth["registered_nodes"]) == ["1", "3"]
    assert stream.truth["registered_nodes"]["1"]["description"] == "alpha block node, moved"
    changes: list[RegisteredNodeChange] = []
    created: list[int] = []
    for block in stream.blocks:
        assert block.kind is PeriodKind.NATIVE
        parsed = parse_block_file(stream.objects[block.path], block.path)
        changes += changes_of(parsed)
        for item in native_block_files(parsed)[0].items:
            record = hapi.TransactionRecord.FromString(item.record_bytes)
            if record.receipt.registered_node_id:
                created.append(record.receipt.registered_node_id)
    # none offers publish, status and subscribe at one endpoint: no block node to read from
    assert changes == [RegisteredNodeChange(n, None) for n in (1, 2, 1, 3, 2)]
    assert created == [1, 2, 3]


def test_no_registered_nodes_without_the_setting() -> None:
    stream = generate_stream(GeneratorConfig(nodes=4, periods=4, transactions=20, seed=3, cutover_after=2))
    assert not any(t["type"].startswith("registeredNode") for t in stream.truth["transactions"])
    assert "registered_nodes" not in stream.truth
