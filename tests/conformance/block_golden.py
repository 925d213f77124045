"""Golden values of the block files under ``../shared/data/hedera/blocks`` (its README: read from the
files, asserted by the block node's and the mirror node's own tests, or computed there and
cross-checked against the next block's footer and the signatures). Paths are relative to the data
folder; hashes are lowercase hex, abbreviated ones as (prefix, suffix) as the README gives them."""

from __future__ import annotations

from dataclasses import dataclass, field

BLOCKS = "blocks"
EMPTY_TREE = "bec021b4f368e3069134e012c2b4307083d3a9bdd206e24e5f0d86e13d6636655933ec2b413465966817a9c208a11717"


@dataclass(frozen=True)
class BlockGolden:
    path: str
    number: int
    hapi: str
    timestamp_ns: int | None
    """None: the README gives it as the first record's consensus time (wrapped blocks)."""
    items: dict[str, int]
    proof: str
    proof_size: int
    root: str | tuple[str, str]
    layout: str
    signature_size: int | None = None


@dataclass(frozen=True)
class WrappedGolden:
    block: str
    record_version: int
    creation_ns: int
    contents_size: int
    records: int
    signers: tuple[int, ...]
    book: str
    """The book every signature verifies with."""
    original: str | None = None
    """The original ``.rcd`` beside the block, when it is in the data."""
    sidecar: str | None = None
    signed_hash: str | None = None
    other_books: dict[str, int] = field(default_factory=dict)
    """Other books and how many of the signatures each verifies."""


def _tss(number: int, timestamp_ns: int, items: dict[str, int], proof: str, proof_size: int, root: str) -> BlockGolden:
    counts = {"block_header": 1, **items, "block_footer": 1, "block_proof": 1}
    return BlockGolden(
        f"{BLOCKS}/tss-schnorr/{number}.blk.gz",
        number,
        "0.78.0-SNAPSHOT",
        timestamp_ns,
        counts,
        proof,
        proof_size,
        root,
        "L16",
        2920,
    )


TSS = (
    _tss(
        0,
        1786398521_705757000,
        {
            "round_header": 144,
            "event_header": 584,
            "state_changes": 790,
            "signed_transaction": 759,
            "transaction_result": 759,
            "transaction_output": 705,
        },
        "signed_block_proof",
        2926,
        "85d7117a94f091156a97e1f94fb11b640c12431527106e50aa7ce8e4e02af287f3f28591dc43d4c3942a67e7064e4148",
    ),
    _tss(
        1,
        1786398531_016135000,
        {
            "round_header": 32,
            "event_header": 138,
            "signed_transaction": 63,
            "transaction_result": 59,
            "state_changes": 67,
            "transaction_output": 55,
        },
        "block_state_proof",
        4006,
        "9799848eff3420617d5c2eb8e092f903bde6de8662887105f3bd17363d7c1cd3629814f9fc58a9d8f5e1e6ed3fdd53c1",
    ),
    _tss(
        2,
        1786398533_092314000,
        {
            "round_header": 35,
            "event_header": 140,
            "signed_transaction": 175,
            "transaction_result": 171,
            "transaction_output": 146,
            "state_changes": 181,
        },
        "block_state_proof",
        3744,
        "0facbf0e5d94d4576635796c6be83f2d16203e6be633e475b70942f2b22c880944c156e1badcd27be96ffc7ee7b7e194",
    ),
    _tss(
        3,
        1786398535_192222000,
        {
            "round_header": 35,
            "event_header": 140,
            "signed_transaction": 28,
            "transaction_result": 24,
            "state_changes": 31,
        },
        "block_state_proof",
        3482,
        "9d1ac9ba0c57558ab99691f97414d19698e068ff6d600502c3896fccfe3f58c261515f00dc3c116107961385be9f8eec",
    ),
    _tss(
        4,
        1786398537_292152000,
        {
            "round_header": 35,
            "event_header": 140,
            "signed_transaction": 26,
            "transaction_result": 22,
            "state_changes": 28,
        },
        "block_state_proof",
        3220,
        "e313796875ef100613684c0ee4ef1a80a13b73aa9c97f5f9592f9b9a25c798b33e36e397fa0e1456b17cee2155b8d7ac",
    ),
    _tss(
        5,
        1786398539_392281000,
        {
            "round_header": 34,
            "event_header": 140,
            "signed_transaction": 29,
            "transaction_result": 25,
            "state_changes": 33,
        },
        "signed_block_proof",
        2928,
        "1c417b370965dd85e274b568694d0a5b3325b39f619a840df0161339864a30e389ba3aec4c7763236d2f4c505d031921",
    ),
)

_MN = f"{BLOCKS}/mirror-node-blockstreams/0000/0000/0000/0000"
_MN_ITEMS = {
    "block_header": 1,
    "round_header": 35,
    "event_header": 35,
    "signed_transaction": 2,
    "transaction_result": 1,
    "state_changes": 4,
    "block_footer": 1,
    "block_proof": 1,
}
MIRROR_NODE = (
    BlockGolden(
        f"{_MN}/007.blk.zstd",
        7,
        "0.73.0-alpha.1",
        1770842059_973945087,
        _MN_ITEMS,
        "signed_block_proof",
        54,
        "8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a",
        "L8",
        48,
    ),
    BlockGolden(
        f"{_MN}/008.blk.zstd",
        8,
        "0.73.0-alpha.1",
        1770842062_085347338,
        _MN_ITEMS,
        "signed_block_proof",
        54,
        "78ef36dc7c7cb57cfb212966b768a0fbc9b0f5045574c6b3bfa0cccdcef9401b7edda1cf05ada60dedd7e0b435e0d81d",
        "L8",
        48,
    ),
    BlockGolden(
        f"{_MN}/016.blk.zstd",
        16,
        "0.73.0-alpha.1",
        1770842078_844243554,
        {
            "block_header": 1,
            "round_header": 35,
            "event_header": 35,
            "signed_transaction": 1,
            "state_changes": 2,
            "block_footer": 1,
            "block_proof": 1,
        },
        "signed_block_proof",
        54,
        "c61a2439f0754008932fe10155ce2c61b32457d6ec30e632a71eafeeef44b1df64b1cfd966c6325c0c5766431f5441f9",
        "L8",
        48,
    ),
)
MIRROR_NODE_PREVIOUS = {
    7: "e11e44567f5ca4ae23b75467b75d83c8880d0888f5c4154f08b8f221bf269b2e4f3f1686e8dcb9694beaaf287313b0fb",
    16: "449c52f8efe0e284aac3a0961efb2403a7337a0fc519c1b5231a07ce6d3eae9e9b9d8809782202a5fd40048ddd533098",
}
MIRROR_NODE_ASSERTED = {
    # MN BlockStreamReaderTest.java:75-138: consensus start = end, transactions, rounds.
    7: (1770842061390565879, 1, (179, 213)),
    8: (1770842063775529380, 1, (214, 248)),
    16: (1770842078844243554, 0, (493, 527)),
}

_WRAPPED_ITEMS = {"block_header": 1, "record_file": 1, "block_footer": 1, "block_proof": 1}


def _solo(number: int, proof_size: int, root: str) -> BlockGolden:
    path = f"{BLOCKS}/wrapped-solo-4n/{number}.blk.gz"
    return BlockGolden(
        path, number, "0.78.0-SNAPSHOT+0", None, _WRAPPED_ITEMS, "signed_record_file_proof", proof_size, root, "L16"
    )


SOLO = (
    _solo(0, 1179, "cc2c7c849e9863458d2deb779dcca9563bec6ef4943b5709d8623803af78f9372d5e38ce8f9ae594fedc74909aece65d"),
    _solo(1, 1181, "8b70cecb8deabc57acb12fa8696bcc27e696b7b1ede3febc2e3f0aaeef422bd55a043b319f326cbecbd886852f392b7a"),
    _solo(2, 1181, "6cfb9066c335aebe27563d8b7ffc2fae0baad4898880e82753827a9147b3b63455bc5fc7b794adeda0810198d717ee30"),
    _solo(3, 1181, "6204e2c36e154b152d43e9e5322346ef4691080d70bb589c8609bef12f63e4ccc1cfa386a27ab66a16c80679f368ac9f"),
    _solo(4, 1181, "32806f4d9977cf41ba2750e9b4254545c19870ff01a1783654b50429b201f2a310bae9cc549821f263935454de88bc43"),
)

_WM = f"{BLOCKS}/wrapped-mainnet"
# The README abbreviates these roots (none is asserted by a reference). Its v5 suffix reads
# "…2a2645ba…" where the file gives "…217a2645ba…": the one differing digit is left out here.
MAINNET_WRAPPED = (
    BlockGolden(
        f"{_WM}/v2-block.blk.gz",
        0,
        "0.3.0",
        1568411631_396440000,
        _WRAPPED_ITEMS,
        "signed_record_file_proof",
        2747,
        ("2262876a73c10cdd", "950baef07d429173d48bc845de158ea8e7c0bacc"),
        "L16",
    ),
    BlockGolden(
        f"{_WM}/v5-block.blk.gz",
        26591040,
        "0.11.0",
        1640995200_252365821,
        _WRAPPED_ITEMS,
        "signed_record_file_proof",
        4714,
        ("2e23d5e423bbe37a", "a2645ba2e832f948b76e200ecd03c70"),
        "L16",
    ),
    BlockGolden(
        f"{_WM}/v6-block.blk.gz",
        82297471,
        "0.63.9+0",
        1753303062_076472454,
        _WRAPPED_ITEMS,
        "signed_record_file_proof",
        4712,
        ("5f7e2b6c89877848", "d783537e0bc732134e9cf4e9baf857f38a"),
        "L16",
    ),
    BlockGolden(
        f"{BLOCKS}/genesis/mainnet/0000000000000000000.blk.zstd",
        0,
        "0.3.0",
        1568411631_396440000,
        {"block_header": 1, "state_changes": 4, "record_file": 1, "block_footer": 1, "block_proof": 1},
        "signed_record_file_proof",
        3923,
        ("140257742d5891f7", "3ca43259cccfc09954b63bcd3e2a4238"),
        "L16",
    ),
    BlockGolden(
        f"{BLOCKS}/genesis/testnet/0000000000000000000.blk.zstd",
        0,
        "0.44.0",
        1706812520_644859297,
        _WRAPPED_ITEMS,
        "signed_record_file_proof",
        2747,
        ("f782988de1dd5c57", "58b32fa3fded47428f630ba5c247e2aa"),
        "L16",
    ),
)

_ORIGINALS = f"{_WM}/record-files"
_V5_DIR = f"{_ORIGINALS}/example-v5/2022-01-01T00_00_00.252365821Z"
_V6_DIR = f"{_ORIGINALS}/example-v6/2025-07-23T20_37_42.076472454Z"
WRAPPED = (
    WrappedGolden(
        f"{BLOCKS}/wrapped-solo-4n/0.blk.gz",
        6,
        1786406797_531342895,
        289026,
        760,
        (0, 1, 3),
        f"{BLOCKS}/wrapped-solo-4n/address-book.json",
    ),
    WrappedGolden(
        f"{BLOCKS}/wrapped-solo-4n/1.blk.gz",
        6,
        1786406869_152031104,
        81406,
        146,
        (0, 2, 3),
        f"{BLOCKS}/wrapped-solo-4n/address-book.json",
    ),
    WrappedGolden(
        f"{BLOCKS}/wrapped-solo-4n/2.blk.gz",
        6,
        1786406869_991991104,
        41003,
        76,
        (0, 2, 3),
        f"{BLOCKS}/wrapped-solo-4n/address-book.json",
    ),
    WrappedGolden(
        f"{BLOCKS}/wrapped-solo-4n/3.blk.gz",
        6,
        1786406872_810233104,
        17915,
        20,
        (0, 2, 3),
        f"{BLOCKS}/wrapped-solo-4n/address-book.json",
    ),
    WrappedGolden(
        f"{BLOCKS}/wrapped-solo-4n/4.blk.gz",
        6,
        1786406874_849198104,
        16980,
        19,
        (0, 2, 3),
        f"{BLOCKS}/wrapped-solo-4n/address-book.json",
    ),
    WrappedGolden(
        f"{_WM}/v2-block.blk.gz",
        2,
        1568411631_396440000,
        458,
        1,
        tuple(range(7)),
        "addressbook/main-resources-mainnet.bin",
        original=f"{_ORIGINALS}/example-v2/2019-09-13T21_53_51.396440Z/2019-09-13T21_53_51.396440Z.rcd",
        signed_hash="420fffe68fcd2a1eadcce589fdf9565bcf5a269d02232fe07cdc565b3b6f76ce46a9418ddc1bbe051d4894e04d091f8e",
        other_books={f"{_V5_DIR}/address_book.bin": 7},
    ),
    WrappedGolden(
        f"{_WM}/v5-block.blk.gz",
        5,
        1640995200_252365821,
        19202,
        35,
        (*range(7, 16), 17, 18, 19),
        f"{_V5_DIR}/address_book.bin",
        original=f"{_V5_DIR}/2022-01-01T00_00_00.252365821Z.rcd",
        signed_hash="5f63f5c65e02fa305a4dadbb3a5bad781aab70b02cd6d057a2f0ba8b14e08d77cf0c7aaff1876577e787ccb32582e566",
        other_books={"addressbook/main-resources-mainnet.bin": 6},
    ),
    WrappedGolden(
        f"{_WM}/v6-block.blk.gz",
        6,
        1753303062_076472454,
        32661,
        47,
        (0, 18, 22, 34, *range(25, 33)),
        f"{_V6_DIR}/address_book.bin",
        original=f"{_V6_DIR}/2025-07-23T20_37_42.076472454Z.rcd",
        sidecar=f"{_V6_DIR}/2025-07-23T20_37_42.076472454Z_01.rcd",
        signed_hash="c998dda6ca7216881d0c0037e2b19897078a561c46354cd69176eff4bc8b65666ca2ace1abd849d0970a237d128f6352",
        other_books={"addressbook/main-resources-mainnet-1769623200803405897.bin": 4},
    ),
    WrappedGolden(
        f"{BLOCKS}/genesis/mainnet/0000000000000000000.blk.zstd",
        2,
        1568411631_396440000,
        458,
        1,
        (7, 8, 9, *range(7)),
        "addressbook/main-resources-mainnet.bin",
        signed_hash="420fffe68fcd2a1eadcce589fdf9565bcf5a269d02232fe07cdc565b3b6f76ce46a9418ddc1bbe051d4894e04d091f8e",
    ),
    WrappedGolden(
        f"{BLOCKS}/genesis/testnet/0000000000000000000.blk.zstd",
        6,
        1706812520_644859297,
        152312,
        707,
        tuple(range(7)),
        "addressbook/main-resources-testnet.bin",
    ),
)
GENESIS_TESTNET_SIGNED_HASH_PREFIX = "2c18d8e3"

ALL_BLOCKS = (*TSS, *MIRROR_NODE, *SOLO, *MAINNET_WRAPPED)
