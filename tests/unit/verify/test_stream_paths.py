from __future__ import annotations

import pytest
from hedera_history.books.address_book import AddressBook
from hedera_history.errors import FileNameError
from hedera_history.formats.names import parse_stream_file_name
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity, object_path, parse_object_path
from hypothesis import given
from hypothesis import strategies as st

TS = "2022-07-13T08_46_11.304284003Z"


def test_account_layout_with_a_prefix():
    parsed = parse_object_path(f"gs-bucket/some/prefix/recordstreams/record0.0.3/{TS}.rcd.gz")
    assert parsed.layout is BucketLayout.ACCOUNT
    assert parsed.prefix == "gs-bucket/some/prefix/"
    assert parsed.node == NodeIdentity(account="0.0.3")
    assert parsed.file.name == f"{TS}.rcd.gz"
    assert not parsed.is_sidecar


def test_account_layout_sidecar_and_no_prefix():
    parsed = parse_object_path(f"recordstreams/record0.0.12/sidecar/{TS}_01.rcd.gz")
    assert (parsed.prefix, parsed.node.account, parsed.is_sidecar) == ("", "0.0.12", True)
    assert parsed.path == f"recordstreams/record0.0.12/sidecar/{TS}_01.rcd.gz"


def test_node_id_layout():
    parsed = parse_object_path(f"/data/bucket/mainnet/0/7/record/sidecar/{TS}_02.rcd.gz")
    assert parsed.layout is BucketLayout.NODE_ID
    assert (parsed.prefix, parsed.network, parsed.shard) == ("/data/bucket/", "mainnet", 0)
    assert parsed.node == NodeIdentity(node_id=7)
    assert parsed.is_sidecar and parsed.file.sidecar_id == 2
    assert parsed.sibling(parsed.file.signature()) == f"/data/bucket/mainnet/0/7/record/{TS}.rcd_sig"


@pytest.mark.parametrize(
    "path",
    [
        f"recordstreams/record0.0.3/{TS}_01.rcd.gz",  # a sidecar outside sidecar/
        f"recordstreams/record0.0.3/sidecar/{TS}.rcd.gz",  # a record inside sidecar/
        f"record0.0.3/{TS}.rcd.gz",  # no recordstreams/
        f"recordstreams/0.0.3/{TS}.rcd.gz",
        f"mainnet/0/x/record/{TS}.rcd.gz",
        f"mainnet/0/3/records/{TS}.rcd.gz",
        f"{TS}.rcd.gz",
        "recordstreams/record0.0.3/notes.txt",
    ],
)
def test_paths_outside_the_layouts_raise(path):
    with pytest.raises(FileNameError):
        parse_object_path(path)


def test_build_paths_in_both_layouts_with_a_book(book: AddressBook):
    name = parse_stream_file_name(f"{TS}_01.rcd.gz")
    by_account = NodeIdentity(account="0.0.5")
    by_id = NodeIdentity(node_id=2)
    assert object_path(BucketLayout.ACCOUNT, by_account, name) == f"recordstreams/record0.0.5/sidecar/{name}"
    assert (
        object_path(BucketLayout.ACCOUNT, by_id, name, prefix="p", directory=book)
        == f"p/recordstreams/record0.0.5/sidecar/{name}"
    )
    assert (
        object_path(BucketLayout.NODE_ID, by_account, f"{TS}.rcd_sig", network="testnet", directory=book)
        == f"testnet/0/2/record/{TS}.rcd_sig"
    )


def test_build_needs_a_mapping_it_can_use(book: AddressBook):
    with pytest.raises(FileNameError):
        object_path(BucketLayout.ACCOUNT, NodeIdentity(node_id=2), f"{TS}.rcd")
    with pytest.raises(FileNameError):
        object_path(BucketLayout.ACCOUNT, NodeIdentity(node_id=99), f"{TS}.rcd", directory=book)
    with pytest.raises(FileNameError):
        object_path(BucketLayout.NODE_ID, NodeIdentity(account="0.0.99"), f"{TS}.rcd", network="n", directory=book)
    with pytest.raises(FileNameError):
        object_path(BucketLayout.NODE_ID, NodeIdentity(node_id=1), f"{TS}.rcd")  # no network


def test_identity_names_exactly_one_thing():
    with pytest.raises(FileNameError):
        NodeIdentity()
    with pytest.raises(FileNameError):
        NodeIdentity(account="0.0.3", node_id=0)
    assert str(NodeIdentity(node_id=4)) == "node 4"


_prefixes = st.sampled_from(["", "bucket/", "a/b/c/", "/abs/path/"])
_files = st.sampled_from([f"{TS}.rcd.gz", f"{TS}.rcd", f"{TS}.rcd_sig", f"{TS}_01.rcd.gz", f"{TS}_03.rcd"])


@given(_prefixes, st.integers(0, 5), st.integers(0, 5), st.integers(0, 10_000), _files)
def test_account_paths_round_trip(prefix, shard, realm, num, file):
    node = NodeIdentity(account=f"{shard}.{realm}.{num}")
    path = object_path(BucketLayout.ACCOUNT, node, file, prefix=prefix)
    parsed = parse_object_path(path)
    assert (parsed.layout, parsed.prefix, parsed.node, parsed.file.name) == (
        BucketLayout.ACCOUNT,
        prefix,
        node,
        file,
    )
    assert parsed.path == path


@given(_prefixes, st.sampled_from(["mainnet", "testnet", "demo"]), st.integers(0, 3), st.integers(0, 500), _files)
def test_node_id_paths_round_trip(prefix, network, shard, node_id, file):
    node = NodeIdentity(node_id=node_id)
    path = object_path(BucketLayout.NODE_ID, node, file, prefix=prefix, network=network, shard=shard)
    parsed = parse_object_path(path)
    assert (parsed.layout, parsed.prefix, parsed.network, parsed.shard, parsed.node) == (
        BucketLayout.NODE_ID,
        prefix,
        network,
        shard,
        node,
    )
    assert parsed.path == path
