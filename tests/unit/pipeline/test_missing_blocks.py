"""Where the sweep looks for a block whose upload event was lost (``pipeline.missing_blocks``):
the first number after the stored chain's links, and the upload bucket's block folder."""

from __future__ import annotations

from hedera_history.config import Settings
from hedera_history.pipeline.missing_blocks import LINKS_PER_READ, chain_end, upload_block_folder
from hedera_history.pipeline.state_cells import Link


class StoredLinks:
    """``IngestState.links`` over a set of linked block numbers, counting its reads."""

    def __init__(self, numbers: set[int]) -> None:
        self.numbers = numbers
        self.reads = 0

    def __call__(self, wanted: list[int]) -> dict[int, list[Link]]:
        self.reads += 1
        return {n: [Link(b"h", b"p", f"{n}")] for n in wanted if n in self.numbers}


def test_the_chain_ends_at_the_first_number_without_a_link() -> None:
    links = StoredLinks({5, 6, 7, 9, 10})  # 8's upload event was lost; 9 and 10 came from elsewhere
    assert chain_end(links, 5) == 8
    assert chain_end(links, 8) == 8
    assert links.reads == 2


def test_a_chain_longer_than_one_read_is_walked_in_reads_of_a_hundred() -> None:
    links = StoredLinks(set(range(3, 3 + 2 * LINKS_PER_READ + 17)))
    assert chain_end(links, 3) == 3 + 2 * LINKS_PER_READ + 17
    assert links.reads == 3


def test_uploaded_blocks_are_looked_for_in_the_network_block_folder_below_the_stream_prefix() -> None:
    assert upload_block_folder(Settings(network="custom")) == "demo/block/"
    assert upload_block_folder(Settings(network="testnet", stream_prefix="uploads/")) == "uploads/testnet/block/"
