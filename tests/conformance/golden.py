"""Golden values: what every real file under ``../shared/data/hedera`` must yield.

The values are those listed in that folder's README (asserted by the Hiero mirror node's own
tests, or computed there and vouched for by the node signature files); the V1 and V2 values are
read from ``v1/EXPECTED.json`` and ``v2/EXPECTED.json`` beside the files. Paths are relative to
the data folder. Hashes and signatures are lowercase hex.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.data_dir import real_data_dir

NODES = ("0.0.3", "0.0.4", "0.0.5", "0.0.6")
CONTRACT_STATE_CHANGE = 1
CONTRACT_BYTECODE = 3


@dataclass(frozen=True)
class SidecarMetadataGolden:
    id: int
    types: tuple[int, ...]
    hash: str


@dataclass(frozen=True)
class RecordGolden:
    folder: str
    """``v1``, ``v2``, ``v5`` or ``v6``; node copies live in ``<folder>/recordstreams/record<node>/``."""
    name: str
    version: int
    size: int
    count: int
    consensus_start: int
    consensus_end: int
    item_consensus_ns: tuple[int, ...] | None
    """Every item's consensus time, where the source lists them (V1/V2 list only start and end)."""
    hapi_version: tuple[int, int, int]
    block_number: int | None
    """The number the file itself carries (V6 only)."""
    start_running_hash: str | None
    """V5/V6: the start running hash. V1/V2 have none."""
    end_running_hash: str
    """V5/V6: the end running hash. V1/V2: the file hash (what the next file must name)."""
    file_hash: str
    metadata_hash: str | None
    previous_file_hash: str | None = None
    """V1/V2: the hash of the previous file as the file states it."""
    index: int | None = None
    """The block number the reference assigns by counting files from 0 (V1/V2 tests assert it)."""
    sidecars: tuple[SidecarMetadataGolden, ...] = ()
    directory: str | None = None
    """Set for a file in the block node's fixture layout: one copy in ``directory`` with every node's
    signature beside it as ``node_<account>.rcd_sig`` (``blocks/wrapped-mainnet/record-files/``)."""

    @property
    def previous_hash(self) -> str:
        """What the predecessor must have ended with (the start running hash, or the previous file hash)."""
        value = self.start_running_hash if self.version >= 5 else self.previous_file_hash
        assert value is not None
        return value

    def path(self, node: str) -> str:
        if self.directory is not None:
            return f"{self.directory}/{self.name}"
        return f"{self.folder}/recordstreams/record{node}/{self.name}"

    def signature_path(self, node: str) -> str:
        if self.directory is not None:
            return f"{self.directory}/node_{node}.rcd_sig"
        return self.path(node).removesuffix(".gz").removesuffix(".rcd") + ".rcd_sig"


@dataclass(frozen=True)
class StorageChangeGolden:
    contract_num: int
    value_written: str
    slot: str = ""
    value_read: str = ""


@dataclass(frozen=True)
class SidecarRecordGolden:
    consensus_ns: int
    type: int
    state_changes: tuple[StorageChangeGolden, ...] = ()
    bytecode_contract_num: int | None = None
    initcode_length: int | None = None
    runtime_bytecode_length: int | None = None


@dataclass(frozen=True)
class SidecarFileGolden:
    folder: str
    name: str
    id: int
    size: int
    hash: str
    consensus_end: int
    records: tuple[SidecarRecordGolden, ...] | None
    """Every record, where the source lists them; else ``record_count`` and ``types`` alone."""
    record_count: int = 0
    types: frozenset[int] = frozenset()
    directory: str | None = None
    """As :attr:`RecordGolden.directory`: the sidecar sits beside its record file."""

    def path(self, node: str) -> str:
        if self.directory is not None:
            return f"{self.directory}/{self.name}"
        return f"{self.folder}/recordstreams/record{node}/sidecar/{self.name}"

    def record_path(self, node: str) -> str:
        """The record file whose ``SidecarMetadata`` names this sidecar."""
        record = self.name.rsplit("_", 1)[0] + (".rcd.gz" if self.name.endswith(".gz") else ".rcd")
        if self.directory is not None:
            return f"{self.directory}/{record}"
        return f"{self.folder}/recordstreams/record{node}/{record}"


@dataclass(frozen=True)
class SignatureGolden:
    path: str
    version: int
    file_hash: str
    metadata_hash: str | None
    file_signature: str | None = None
    """Given for the stand-alone files; node signature files are checked by RSA elsewhere."""
    metadata_signature: str | None = None
    signature_length: int = 384


V6_FILE_1 = RecordGolden(
    folder="v6",
    name="2022-07-13T08_46_08.041986003Z.rcd.gz",
    version=6,
    size=509,
    count=1,
    consensus_start=1657701968041986003,
    consensus_end=1657701968041986003,
    item_consensus_ns=(1657701968041986003,),
    hapi_version=(0, 28, 0),
    block_number=5,
    start_running_hash="13d2594b9e9dbb73dad0cad67a96ad7a0e249af8693aa894003876c9ddd5534b3143e4d785e04fc0c461945a03e85178",
    end_running_hash="a6c241fad2c636f68a6aa0da9293245a5ef0ebef345cd139858068ff7998716cefe0fd3afa0d21304725507061975279",
    file_hash="69a4354de5aeb12fbc989ae086fc291cfc1b61415391b4a46915b32aef722a511c4ceba60ecda72d527cc4866a4d235b",
    metadata_hash="361c0176ba28cc55525c50e7e75e58618b451f3dca402d9be19626159d939e7a569534658125732c1af31ff6f4a8e283",
)

V6_SIDECAR_HASH = "1ed54ea01aab5e726a087e94a0dd52c0f49b149d7a773ae71a3dc099f623bcf1840393db68f8db476ab11e6159f030f2"

V6_FILE_2 = RecordGolden(
    folder="v6",
    name="2022-07-13T08_46_11.304284003Z.rcd.gz",
    version=6,
    size=805,
    count=2,
    consensus_start=1657701971304284003,
    consensus_end=1657701971304284004,
    item_consensus_ns=(1657701971304284003, 1657701971304284004),
    hapi_version=(0, 28, 0),
    block_number=6,
    start_running_hash=V6_FILE_1.end_running_hash,
    end_running_hash="3064b824b8b9f9ece011f88a26c030c9f6b822f30fbcabcc7240a220ea42bbdbf305db415a4e41307d0630d5cefe4550",
    file_hash="ed518c8d05f470d4540db35ea8665ab158f9aeb0bcaa3332d171c1efba119da52c1ee510df599269b022d963d4d1e474",
    metadata_hash="b13a2b638c5688dbec43b97dbee8ad637d2d42376fc313c628a990ac65aefdbd39832cf5ece42b925a520ed2d2bf8eac",
    sidecars=(SidecarMetadataGolden(id=1, types=(CONTRACT_STATE_CHANGE, CONTRACT_BYTECODE), hash=V6_SIDECAR_HASH),),
)

V5_FILE_1 = RecordGolden(
    folder="v5",
    name="2021-01-11T22_09_24.063739000Z.rcd",
    version=5,
    size=498,
    count=1,
    consensus_start=1610402964063739000,
    consensus_end=1610402964063739000,
    item_consensus_ns=(1610402964063739000,),
    hapi_version=(0, 9, 0),
    block_number=None,
    start_running_hash="00" * 48,
    end_running_hash="151bd3358db59fc7936eff15f1cb6734354e444cf85549a5643e55c9c929cb500be712abccd588cd8d20eb92ca55ff49",
    file_hash="e8adaac05a62a655a3c476b43f1383f6c5f5bba4bfa6c7b087dc4ee3a9089e232b5d5977bde7fba858fd56987792ece3",
    metadata_hash="ffe56840b99145f7b3370367fa5784cbe225278afd1c4c078dfe5b950fee22e2b9e9a04bde32023c3ba07c057cb54406",
)

V5_FILE_2 = RecordGolden(
    folder="v5",
    name="2021-01-11T22_09_34.097416003Z.rcd",
    version=5,
    size=498,
    count=1,
    consensus_start=1610402974097416003,
    consensus_end=1610402974097416003,
    item_consensus_ns=(1610402974097416003,),
    hapi_version=(0, 9, 0),
    block_number=None,
    start_running_hash=V5_FILE_1.end_running_hash,
    end_running_hash="514e361089074cb06f984e5a943a20fba2a0d601b766f8adb432d03214c48c3ff14898e6b78292520340f484e820ea84",
    file_hash="06fb76873dcdc3a4fdb67202e64ed735feaf6a6bb80d4f57fd3511df49ef61fc69d7a2414315028b7d77e168169fad22",
    metadata_hash="912869b5204ffbb7e437aaa6e7a09e9d53da98ead27942fdf7017e850827e857fadb1167e8877cfb8175883adcd74f7d",
)


def _expected_json(folder: str) -> dict[str, Any]:
    path = real_data_dir() / folder / "EXPECTED.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: set HEDERA_HISTORY_TEST_DATA to the real data folder")
    expected: dict[str, Any] = json.loads(path.read_text())
    return expected


def _legacy_goldens(folder: str) -> tuple[RecordGolden, ...]:
    """The V1 or V2 set's values, as ``<folder>/EXPECTED.json`` states them with their citations."""
    return tuple(
        RecordGolden(
            folder=folder,
            name=entry["name"],
            version=entry["version"],
            size=entry["size"],
            count=entry["count"],
            consensus_start=entry["consensus_start"],
            consensus_end=entry["consensus_end"],
            item_consensus_ns=None,
            # The reference treats the HAPI version of V1/V2 files as unset, whatever the header int says.
            hapi_version=(0, 0, 0),
            block_number=None,
            start_running_hash=None,
            end_running_hash=entry["end_running_hash"],
            file_hash=entry["file_hash"],
            metadata_hash=None,
            previous_file_hash=entry["previous_hash"],
            index=entry["block_number"],
        )
        for entry in _expected_json(folder)["files"]
    )


V1_FILES = _legacy_goldens("v1")
V2_FILES = _legacy_goldens("v2")
BOOKS = {
    "v6": "addressbook/test-v6-sidecar-4n.bin",
    "v5": "addressbook/test-resources-testnet.bin",
    **{folder: _expected_json(folder)["address_book"] for folder in ("v1", "v2")},
}
"""The address book each set verifies with, relative to the data folder."""

RECORD_FILES = (V6_FILE_1, V6_FILE_2, V5_FILE_1, V5_FILE_2, *V1_FILES, *V2_FILES)

SIDECAR_FILES = (
    SidecarFileGolden(
        folder="v6",
        name="2022-07-13T08_46_11.304284003Z_01.rcd.gz",
        id=1,
        size=279,
        hash=V6_SIDECAR_HASH,
        consensus_end=1657701971304284004,
        records=(
            SidecarRecordGolden(
                consensus_ns=1657701971304284003,
                type=CONTRACT_STATE_CHANGE,
                state_changes=(
                    StorageChangeGolden(contract_num=1002, value_written="03eb"),
                    StorageChangeGolden(contract_num=1003, value_written="08"),
                ),
            ),
            SidecarRecordGolden(
                consensus_ns=1657701971304284004,
                type=CONTRACT_BYTECODE,
                bytecode_contract_num=1003,
                initcode_length=196,
                runtime_bytecode_length=161,
            ),
        ),
    ),
)

STANDALONE_SIGNATURES = (
    SignatureGolden(
        path="signature/v6/2022-06-16T10_18_37.496046001Z.rcd_sig",
        version=6,
        file_hash="3e546619bd9c59fe0ee03be25ff2371718ff206f31323868207bb621bc85212669eb66b8a1556d4e686c8fbcd14f9e97",
        file_signature=(
            "9147ae3132a356a816e2d66dff3ccfcfa00af49c827468a47c5a66cf9ca4f3352832b5561085c55e2be7807d99ccbe24"
            "75e277c3b6f1334b57d350a57986f0ccace2056a0f14a258ad2bc54d9225ef56ef2c1ff2c7a614448c8dbd2c4227afe8"
            "784fff08a8cd7c78ac64e5544671c06b24a9f163b8c5a993eb3efdc6fb729964521d907e7fcce4fd22fbed9dd2a9522b"
            "2b4c4cd1cb5350f16c076bd43ca3f6fd61a73c852e9af4d120ffb3d3996810dfa8c5a1c9c71aff3b8c9a24d541ee361e"
            "35b8b6debd57a19492a56e57bb85b600e818d1336e71a1374eb17f457260d8df99b1b22b725aad01ff6787847c14b9b5"
            "578ff75a97f5d645a6ffb9016b55d18f595d4dcf3aec8c504f3996030d4295b271300ea9171c3375c1291e5725a548c8"
            "ac0b571984f17ad7a07bf17a4681bf67d6099271cb2e80d7444f6a7aace3e575af5bed2f02ba99f16f432a7b4ac2cca7"
            "84f3694fe36085c9c17a3464c0759a2cae9109bf5e36fb138f17382d532ecac19889ac0c360c663847b93e3989004823"
        ),
        metadata_hash="01a43036a6ce80082680fa64b4702aecb659b8ddd02a06201c6c83d2b71def7b2ee1b5ac09bb7eb9b2f04dad5547e8e9",
        metadata_signature=(
            "867d0c076f947c3f1cf33f2e56894006572a51e9a984c037b436fa9fcd1f50bee6114c486bacc21cec80492709b0aa3a"
            "2edcca4c3f9a4efc2143f4a567fcf7e0f72a17d147e24c48968faa455b8b649b0c00c5525d5efd48839f7fe1c53c61bb"
            "6d2cfe62ed23a41be9f5a038f8932e960926752100f1cdb874b72d3b0ceb419020ddc9093316d482138a0d64cf008cad"
            "3069d059f342c9a9a5936c130bc0c7248e65dd3fd99b9fbe828df6990e1754790e3c8846d8ababc99a92b2ec61b53787"
            "ab374559b806fa00f4de07f1d1b78282cd9fbf4f8268e80d21856300d319ab149cb4bf1eb3693567be415bea5a8963e9"
            "8079a299c5f920537ad2983d201ee5115892bafe0c79d3a88675e4398851acfd15ee8e240f4282b253f6cab70b90c582"
            "77c30db68839982e28613e338329a42fd4a60eb20dda183ce1dd9ae250e191debd8bc1a8df9cfe4980aca7ebe3cc2b55"
            "e7bd799516d70b86420e68532799759e2f865f1ee155cea5492800a7e8b7cec16c974ca838998b350e2499d416d6687c"
        ),
    ),
    SignatureGolden(
        path="signature/v6/2022-06-16T10_18_40.720801003Z.rcd_sig",
        version=6,
        file_hash="b5947d59a5661f591c0950e8dd0c6a4d42f49dcf7454bc05c911fef67aedead41fb00f01ac32b1de9ac2b3130fb14346",
        file_signature=(
            "8c23d928ae9a0986e1398fc58af59f0081a025e7438eddea8768e6c84171970fd874d9862fc06207ee0f3a049d6ae1b9"
            "daca4d568850830c39b99ac35e24e00fd59e8c01ed37891989b0988e38de4e1f9c55f8cc8d7b9fdeeb3f3c8eb91e8533"
            "2fe57b7a6bb59a404b035ee01cd472a111a94edc864ce9c561e3176cb1b0cd54e905e5e82909ee346eb32e1869a0ac0e"
            "ea39122ba4d17eb9eae63569676fe3345f2ba350a38781e36b973fd47ba4587f7443007f0b11453fd4da94b6bd7368b1"
            "df73aeb5897252d63cd6780ef8ccc54f9baeb772aa06d06530433f4357a578acfbe63ed487d75505bf7ded25661c8fa8"
            "d94d97cf8914caab41cfbec48160a647980063796e643c118aa45a5044beed44f8e6ace59796679cfb7ecbfaac954886"
            "ba4a10f6761d9abc45edf12b11b5e45f88c3a9dcbb1943b6c1d4eacdb47d8917246d2cadac4653138f92aa307dcfdb6b"
            "9c58350c04ae692cf029d7c8bf66e48ff292028fc09eddd89e9ea833e52ea9dbe0f8d2438fe65df37abb1b1b1c6469c4"
        ),
        metadata_hash="c8766bf8449e2d4598a4b7cc41c7a54f16dc869bd9cf81af2536ba1a8ec8c86d1e33134995d45f67ce26a79249d96666",
        metadata_signature=(
            "73e629389b23202311e62c11a5a740ff6dd6deff2402c1427f892a8cf1bf863933eb2b6ad39e4208bbdb241bb2bda107"
            "b4adcd72a9aff4da2f9ae5495e521a029b56a7bfc219fd81e474160adb6a551f76fccf46554c1f611ad72d27b141e3a6"
            "a206d9600296fe7c0f6c0b9a4c2fde8d26b609520576bb7b3aa1ee2e766f21ca5cb835f5b8cbdde63e3660634f56fb31"
            "8fdb3318d6159c31894dfd1f732c79c4c85fb6ff59ab50ac2ce56cbcc8d14450cda030ef7c83871b86477f7cc10ce8ea"
            "44c9c5f97530bd2fdccadf87435ce9dd55cc7cc39b1382db8566d4d77ae7e3444303a8e6712bca05f7571679a7c94835"
            "32b3ca22335584cb5ded47ad2622ad19264a1666e66490dccab7996136336c0191a4472a6e570bb4167c2a0183dea146"
            "717ec302a8739975e6a175ee1bb7884d6584dba30492f8fd695b3207f6f5d02f3b4f3f2ad48160336bbf2b633b4d6cab"
            "0a0364bc251becade29e52877d8b172cb1fa8e7e3bdb56eeff9eaf77e37ce44cfdbbc32c643308720c5e4e5d37074682"
        ),
    ),
    SignatureGolden(
        # The mirror node test states the signatures in base64; these are the same bytes in hex.
        path="signature/v5/2021-01-11T22_16_11.299356001Z.rcd_sig",
        version=5,
        file_hash="2fe38056afaa7b289c9cbfa55522f95c8072f0949819a4d519af400c6e7db3e64e5077136801d1dcac57d02a28739268",
        file_signature=(
            "2cde6d1073ea13a55140f1974965841b52ceaae56d3a01d1bb92c518d08bac7eff702778c5b0b546739e43e13d7332f0"
            "7596875b142c73cd28a03eb6a112dcc37dd714c646815bd7456bc6f6596d50fd1345f0d244d031cfedf50809ef55af5d"
            "b3b43778a1941ec901eebc087894505d5cfa507a2703b5809b2a5e45b285277c7b01d2de7fc11a1fa5fcdc1b37be65f9"
            "2e7516550fe6f2f3cdc02d3cf6185e5a16e4448665c09d6537a272fab41ebffe640061a1c5481f425b389d0c0dab83a3"
            "95e5504c28702ca8b49c756175b128ba830e052616dad66180fd222dc58ad1e835010175d1c0307af765c62635597536"
            "d4befa2993a64d8628e44b3191efbe9ed0365e25b33a67011ae77fe310ead4bbecb0d94a48a2ab31832c75c4b89d3cf7"
            "02475200c2f1908abb841f990b5d9170e0c46aaca096735ac161d8e2b8a5ecbd65a3406dfd3b4542c2bb25c04654f06a"
            "6f930ee43b5259f140931a4ec0548e73ade0cb2a99c18c7a89e0be9a0153a0b8f187feeb6c6d7eb292cde1885f328b2b"
        ),
        metadata_hash="cb24a1f3e2330a5a7393a43f4d02b5f03df78ea54d37a899999a9de69f50376d6d52cd8448219e8a6df600d21fa1aa62",
        metadata_signature=(
            "83ac47c8a7b15e0c8558bc5c9e743ff07ede7e8b302c05914bd4f42862c149d51557472ef5df9c42bdfff20c2b4dbef2"
            "18dffb7ef1eb3681ad5c39442bd4e20477aa9fa8951bf108909aa90592d445e1ab651c033cc3beb2d8f56839443a5d78"
            "de339eb0c88c358b25fb6eee7ab61f5cbae4add5b7765ce7098bb5e9fac132e8102ae1f6a13724d9c4f40199ad1ea2c5"
            "90a2ac8c15a7c659b1fb3d9d969fcb8488386a333465999853b1812fc6a4138888963c0e55bad0a479af861352eae0ae"
            "516d2a020fc922847c6ba7d74648b8512c910abbfedb3d475e3b0c338f7b5927c8bc7ba0bcb14e208dc650231e563296"
            "3de5cced467a96a6ba8f277eb9786680e6819f319f38271fc1a9467a381e062a6191004d55d899fb1147c262a102fb0a"
            "5f2a7664522b07e3c631023cc2bd5c08c60b298a48e1571e0a42d3201dd738e54a64f59968eb3c30af408fd65e4f7444"
            "a9f776e76375f63db2038e71f19b36911202da228d3443f071a51b18d1e23e6b19e44cead259cd2aea2624408cb181ee"
        ),
    ),
)

# Real mainnet record files beside the blocks that wrap them (HIP-1427), in the block node's fixture
# layout. The signed hashes, start and end running hashes, sizes, counts and versions are those of
# ``blocks/README.md`` (where it shortens a hash, its prefix; every node's signature file names the
# same file and metadata hash, and each verifies against the book the README names:
# tests/conformance/test_verify_real.py). The first consensus time is the wrapping block's timestamp.
WRAPPED_DIR = "blocks/wrapped-mainnet/record-files"
WRAPPED_V2 = RecordGolden(
    folder="blocks/wrapped-mainnet",
    directory=f"{WRAPPED_DIR}/example-v2/2019-09-13T21_53_51.396440Z",
    name="2019-09-13T21_53_51.396440Z.rcd",
    version=2,
    size=455,
    count=1,
    consensus_start=1568411631396440000,
    consensus_end=1568411631396440000,
    item_consensus_ns=(1568411631396440000,),
    hapi_version=(0, 0, 0),
    block_number=None,
    start_running_hash=None,
    end_running_hash="420fffe68fcd2a1eadcce589fdf9565bcf5a269d02232fe07cdc565b3b6f76ce46a9418ddc1bbe051d4894e04d091f8e",
    file_hash="420fffe68fcd2a1eadcce589fdf9565bcf5a269d02232fe07cdc565b3b6f76ce46a9418ddc1bbe051d4894e04d091f8e",
    metadata_hash=None,
    previous_file_hash="00" * 48,
    index=0,
)
WRAPPED_V5 = RecordGolden(
    folder="blocks/wrapped-mainnet",
    directory=f"{WRAPPED_DIR}/example-v5/2022-01-01T00_00_00.252365821Z",
    name="2022-01-01T00_00_00.252365821Z.rcd",
    version=5,
    size=19622,
    count=35,
    consensus_start=1640995200252365821,
    consensus_end=1640995201946271915,
    item_consensus_ns=None,
    hapi_version=(0, 11, 0),
    block_number=None,
    start_running_hash="13ab802d147ef5a5a32c4bd386225e354aaa03c91122e48fea9777ad31e010de840dab29d42074fb264b5cacd1f69702",
    end_running_hash="0d7773874647eddc3039fedf1d9a47aac58b7f4f4c47e77a8599456b800472cd0b55954837f03e002a217095615430b8",
    file_hash="5f63f5c65e02fa305a4dadbb3a5bad781aab70b02cd6d057a2f0ba8b14e08d77cf0c7aaff1876577e787ccb32582e566",
    metadata_hash="47c23ef47aba41121ddaba07e15571c0fefe54fd03544310bd400170ee8db4c2cf6004e7f8f2f10b6e143cd2f574cc24",
)
WRAPPED_V6_SIDECAR_HASH = (
    "e4cbf4516c964c8f9dbc5c46ee2956aa4cad468abfc74352f1146c7e40e81522e9528c943c9b9214faa43a6577d3d2f5"
)
WRAPPED_V6 = RecordGolden(
    folder="blocks/wrapped-mainnet",
    directory=f"{WRAPPED_DIR}/example-v6/2025-07-23T20_37_42.076472454Z",
    name="2025-07-23T20_37_42.076472454Z.rcd",
    version=6,
    size=32665,
    count=47,
    consensus_start=1753303062076472454,
    consensus_end=1753303063721549000,
    item_consensus_ns=None,
    hapi_version=(0, 63, 9),
    block_number=82297471,
    start_running_hash="cbd7a318fb7d0a023632002926857a1511953f6e1a6d162df1fe8b57f97d21389094f7a2bb31edd9d9859cc38c561bdd",
    end_running_hash="f3a71062087f6afb70754c32cca0dcb48d297b0b909a956cd2b6d22c782ed6054742584b0465865e1fb1adcfbda7f65d",
    file_hash="c998dda6ca7216881d0c0037e2b19897078a561c46354cd69176eff4bc8b65666ca2ace1abd849d0970a237d128f6352",
    metadata_hash="3d51cc9c618dd7c72133d3f39bf0ecfa2473f3dc8bcc51b9b1cadea16df1a8d58d8360193f85e15f5791a41cc8a4d1dd",
    sidecars=(SidecarMetadataGolden(id=1, types=(1, 2), hash=WRAPPED_V6_SIDECAR_HASH),),
)
WRAPPED_ORIGINALS = (WRAPPED_V2, WRAPPED_V5, WRAPPED_V6)
WRAPPED_SIGNERS = {
    WRAPPED_V2: tuple(f"0.0.{n}" for n in range(3, 10)),
    WRAPPED_V5: tuple(f"0.0.{n}" for n in (*range(10, 19), 20, 21, 22)),
    WRAPPED_V6: tuple(f"0.0.{n}" for n in (3, 21, 25, *range(28, 36), 37)),
}
WRAPPED_BOOKS = {
    WRAPPED_V2: "addressbook/main-resources-mainnet.bin",
    WRAPPED_V5: f"{WRAPPED_V5.directory}/address_book.bin",
    WRAPPED_V6: f"{WRAPPED_V6.directory}/address_book.bin",
}
"""The book each original verifies with, all signatures (``blocks/README.md``)."""
WRAPPED_SIDECAR = SidecarFileGolden(
    folder="blocks/wrapped-mainnet",
    directory=WRAPPED_V6.directory,
    name="2025-07-23T20_37_42.076472454Z_01.rcd",
    id=1,
    size=41037,
    hash=WRAPPED_V6_SIDECAR_HASH,
    consensus_end=1753303063563756000,
    records=None,
    record_count=12,
    types=frozenset({1, 2}),
)

# Every node signs the hashes of its record file; the signatures themselves differ per node.
NODE_SIGNATURES = tuple(
    SignatureGolden(
        path=record.signature_path(node),
        # V1 and V2 record files share one signature format (a type byte, the hash, the signature).
        version=max(record.version, 2),
        file_hash=record.file_hash,
        metadata_hash=record.metadata_hash,
    )
    for record in RECORD_FILES
    for node in NODES
) + tuple(
    SignatureGolden(
        path=record.signature_path(node),
        version=max(record.version, 2),
        file_hash=record.file_hash,
        metadata_hash=record.metadata_hash,
    )
    for record, signers in WRAPPED_SIGNERS.items()
    for node in signers
)

SIGNATURES = NODE_SIGNATURES + STANDALONE_SIGNATURES

# (path, golden) for every node copy.
RECORD_CASES = tuple((record.path(node), record) for record in RECORD_FILES for node in NODES) + tuple(
    (record.path(""), record) for record in WRAPPED_ORIGINALS
)
SIDECAR_CASES = (
    *((sidecar.path(node), sidecar) for sidecar in SIDECAR_FILES for node in NODES),
    (WRAPPED_SIDECAR.path(""), WRAPPED_SIDECAR),
)
SIGNATURE_CASES = tuple((signature.path, signature) for signature in SIGNATURES)


def all_paths() -> set[str]:
    """Every stream file the golden values cover."""
    return (
        {path for path, _ in RECORD_CASES} | {path for path, _ in SIDECAR_CASES} | {path for path, _ in SIGNATURE_CASES}
    )
