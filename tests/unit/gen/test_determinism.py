"""The same configuration gives the same stream, byte for byte; another seed gives another."""

from __future__ import annotations

from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream
from hedera_history.gen.keys import private_pem


def test_same_config_same_bytes(generated_stream: GeneratedStream) -> None:
    again = generate_stream(generated_stream.config)
    assert again.objects == generated_stream.objects  # gzip headers are derived too
    assert [p.record_bytes for p in again.periods] == [p.record_bytes for p in generated_stream.periods]
    assert [s.data for p in again.periods for s in p.sidecars] == [
        s.data for p in generated_stream.periods for s in p.sidecars
    ]
    assert again.truth == generated_stream.truth
    assert again.address_book == generated_stream.address_book
    assert {k: private_pem(v) for k, v in again.keys.node_keys.items()} == {
        k: private_pem(v) for k, v in generated_stream.keys.node_keys.items()
    }


def test_another_seed_changes_everything() -> None:
    first = generate_stream(GeneratorConfig(nodes=1, periods=2, transactions=5, seed=0, rotate_key=False))
    second = generate_stream(GeneratorConfig(nodes=1, periods=2, transactions=5, seed=1, rotate_key=False))
    assert first.address_book != second.address_book
    assert first.truth["start_running_hash"] != second.truth["start_running_hash"]
    assert first.periods[0].record_bytes != second.periods[0].record_bytes


def test_start_block_and_layout_only_move_things() -> None:
    base = GeneratorConfig(nodes=2, periods=2, transactions=6, rotate_key=False)
    moved = GeneratorConfig(
        nodes=2, periods=2, transactions=6, rotate_key=False, start_block=500, layout=BucketLayout.NODE_ID
    )
    first, second = generate_stream(base), generate_stream(moved)
    assert [b["number"] for b in second.truth["blocks"]] == [500, 501]
    assert all(path.startswith(("demo/0/0/record/", "demo/0/1/record/")) for path in second.objects)
    # Transactions do not depend on where the files go or how blocks are numbered.
    assert [t["hash"] for t in first.truth["transactions"]] == [t["hash"] for t in second.truth["transactions"]]
