"""The generated files are what a V6 stream must be: chained running hashes, file and metadata
hashes, transaction hashes, sidecars, names, block numbers and gzip copies per node."""

from __future__ import annotations

import gzip

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from hedera_history import hapi
from hedera_history.formats.hashing import running_hash, sha384, v6_metadata_hash
from hedera_history.formats.names import parse_stream_file_name
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream
from hedera_history.gen.stream import start_running_hash

from tests.unit.gen.helpers import consensus_ns, items, record_file, timestamp_ns


def test_record_files_are_canonical_protobuf(generated_stream: GeneratedStream) -> None:
    for period in generated_stream.periods:
        body = period.record_bytes[4:]
        assert hapi.RecordStreamFile.FromString(body).SerializeToString() == body


def test_running_hash_chains_across_periods(generated_stream: GeneratedStream) -> None:
    expected_start = start_running_hash(generated_stream.config.seed)
    for index, period in enumerate(generated_stream.periods):
        parsed = record_file(generated_stream, index)
        assert parsed.start_object_running_hash.hash == expected_start
        pairs = [(i.record_bytes, i.transaction_bytes) for i in items(generated_stream, index)]
        end = running_hash(expected_start, pairs)
        assert parsed.end_object_running_hash.hash == end == period.end_running_hash
        assert parsed.start_object_running_hash.algorithm == 1
        assert parsed.start_object_running_hash.length == 48
        expected_start = end


def test_file_and_metadata_hashes(generated_stream: GeneratedStream) -> None:
    config = generated_stream.config
    for index, period in enumerate(generated_stream.periods):
        decompressed = gzip.decompress(generated_stream.objects[generated_stream.record_path(0, index)])
        assert sha384(decompressed) == period.file_hash
        parsed = record_file(generated_stream, index)
        version = parsed.hapi_proto_version
        assert (version.major, version.minor, version.patch) == config.hapi_version
        assert parsed.block_number == config.start_block + index
        assert period.start_running_hash is not None and period.end_running_hash is not None
        assert period.metadata_hash == v6_metadata_hash(
            config.hapi_version, period.start_running_hash, period.end_running_hash, parsed.block_number
        )


def test_transaction_hash_is_sha384_of_signed_transaction_bytes(generated_stream: GeneratedStream) -> None:
    for index in range(len(generated_stream.periods)):
        for item in items(generated_stream, index):
            transaction = hapi.Transaction.FromString(item.transaction_bytes)
            assert transaction.signedTransactionBytes
            assert item.record.transactionHash == sha384(transaction.signedTransactionBytes)


def test_user_transactions_carry_an_ed25519_signature(generated_stream: GeneratedStream) -> None:
    checked = 0
    for index in range(len(generated_stream.periods)):
        for item in items(generated_stream, index):
            transaction = hapi.Transaction.FromString(item.transaction_bytes)
            signed = hapi.SignedTransaction.FromString(transaction.signedTransactionBytes)
            body = hapi.TransactionBody.FromString(signed.bodyBytes)
            if not body.HasField("nodeAccountID"):
                assert not signed.sigMap.sigPair  # child and scheduled records are not signed
                continue
            pair = signed.sigMap.sigPair[0]
            Ed25519PublicKey.from_public_bytes(pair.pubKeyPrefix).verify(pair.ed25519, signed.bodyBytes)
            checked += 1
    assert checked > 0


def test_consensus_times_strictly_increase_and_name_the_file(generated_stream: GeneratedStream) -> None:
    previous = 0
    config = generated_stream.config
    for index, period in enumerate(generated_stream.periods):
        times = [consensus_ns(i.record) for i in items(generated_stream, index)]
        assert times == sorted(set(times))
        assert times[0] > previous
        previous = times[-1]
        window_start = config.start_time_ns + index * config.period_ns
        assert window_start <= times[0] and times[-1] < window_start + config.period_ns
        name = parse_stream_file_name(str(period.record_name))
        assert name.consensus_ns == times[0] == period.consensus_start_ns
        assert str(period.record_name).endswith(".rcd.gz")


def test_sidecars_match_their_metadata(generated_stream: GeneratedStream) -> None:
    with_sidecars = 0
    for index, period in enumerate(generated_stream.periods):
        parsed = record_file(generated_stream, index)
        assert len(parsed.sidecars) == len(period.sidecars)
        for metadata, sidecar in zip(parsed.sidecars, period.sidecars, strict=True):
            with_sidecars += 1
            path = generated_stream.sidecar_paths(0, index)[0]
            assert path.endswith(f"/sidecar/{period.record_name.period_key}_01.rcd.gz")
            data = gzip.decompress(generated_stream.objects[path])
            assert data == sidecar.data
            assert metadata.hash.hash == sha384(data)
            assert metadata.id == 1
            records = hapi.SidecarFile.FromString(data).sidecar_records
            found_types = {r.WhichOneof("sidecar_records") for r in records}
            names = {1: "state_changes", 2: "actions", 3: "bytecode"}
            assert found_types == {names[t] for t in metadata.types}
            times = {consensus_ns(i.record) for i in items(generated_stream, index)}
            assert {timestamp_ns(r.consensus_timestamp) for r in records} <= times
    assert with_sidecars > 0


def test_node_copies_differ_only_in_gzip_header(generated_stream: GeneratedStream) -> None:
    for index in range(len(generated_stream.periods)):
        copies = [
            generated_stream.objects[generated_stream.record_path(n.node_id, index)] for n in generated_stream.nodes
        ]
        assert len(set(copies)) == len(copies)
        assert len({gzip.decompress(c) for c in copies}) == 1
        name = str(generated_stream.periods[index].record_name).removesuffix(".gz").encode()
        for copy in copies:
            assert copy[3] == 0x08  # FNAME
            assert copy[10 : 10 + len(name)] == name


def test_layout_paths(generated_stream: GeneratedStream) -> None:
    first = generated_stream.periods[0].record_name.period_key
    assert generated_stream.record_path("0.0.4", 0) == f"recordstreams/record0.0.4/{first}.rcd.gz"
    assert generated_stream.signature_path(1, 0) == f"recordstreams/record0.0.4/{first}.rcd_sig"
    expected = {
        p for n in generated_stream.nodes for i in range(6) for p in generated_stream.period_paths(n.node_id, i)
    }
    assert expected == set(generated_stream.objects)


def test_no_sidecars_means_no_sidecar_files() -> None:
    stream = generate_stream(GeneratorConfig(nodes=1, periods=2, transactions=30, sidecars=False, rotate_key=False))
    assert not any("/sidecar/" in path for path in stream.objects)
    assert all(not record_file(stream, i).sidecars for i in range(2))
    assert all(t["sidecar_types"] == [] for t in stream.truth["transactions"])
