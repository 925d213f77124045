from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProofBundle(_message.Message):
    __slots__ = ("format_version", "subject", "block", "sidecars", "trust", "correction", "native_block")
    FORMAT_VERSION_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    SIDECARS_FIELD_NUMBER: _ClassVar[int]
    TRUST_FIELD_NUMBER: _ClassVar[int]
    CORRECTION_FIELD_NUMBER: _ClassVar[int]
    NATIVE_BLOCK_FIELD_NUMBER: _ClassVar[int]
    format_version: int
    subject: Subject
    block: BlockEvidence
    sidecars: _containers.RepeatedCompositeFieldContainer[SidecarEvidence]
    trust: TrustChain
    correction: Correction
    native_block: NativeBlockEvidence
    def __init__(self, format_version: _Optional[int] = ..., subject: _Optional[_Union[Subject, _Mapping]] = ..., block: _Optional[_Union[BlockEvidence, _Mapping]] = ..., sidecars: _Optional[_Iterable[_Union[SidecarEvidence, _Mapping]]] = ..., trust: _Optional[_Union[TrustChain, _Mapping]] = ..., correction: _Optional[_Union[Correction, _Mapping]] = ..., native_block: _Optional[_Union[NativeBlockEvidence, _Mapping]] = ...) -> None: ...

class NativeBlockEvidence(_message.Message):
    __slots__ = ("items", "root_path", "block_signature", "ledger", "mountain_top")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    ROOT_PATH_FIELD_NUMBER: _ClassVar[int]
    BLOCK_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    LEDGER_FIELD_NUMBER: _ClassVar[int]
    MOUNTAIN_TOP_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ProvenBlockItem]
    root_path: _containers.RepeatedCompositeFieldContainer[MerkleStep]
    block_signature: bytes
    ledger: NativeBlockEvidence
    mountain_top: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, items: _Optional[_Iterable[_Union[ProvenBlockItem, _Mapping]]] = ..., root_path: _Optional[_Iterable[_Union[MerkleStep, _Mapping]]] = ..., block_signature: _Optional[bytes] = ..., ledger: _Optional[_Union[NativeBlockEvidence, _Mapping]] = ..., mountain_top: _Optional[_Iterable[bytes]] = ...) -> None: ...

class ProvenBlockItem(_message.Message):
    __slots__ = ("block_item", "siblings")
    BLOCK_ITEM_FIELD_NUMBER: _ClassVar[int]
    SIBLINGS_FIELD_NUMBER: _ClassVar[int]
    block_item: bytes
    siblings: _containers.RepeatedCompositeFieldContainer[MerkleStep]
    def __init__(self, block_item: _Optional[bytes] = ..., siblings: _Optional[_Iterable[_Union[MerkleStep, _Mapping]]] = ...) -> None: ...

class MerkleStep(_message.Message):
    __slots__ = ("is_first", "sibling_hash")
    IS_FIRST_FIELD_NUMBER: _ClassVar[int]
    SIBLING_HASH_FIELD_NUMBER: _ClassVar[int]
    is_first: bool
    sibling_hash: bytes
    def __init__(self, is_first: _Optional[bool] = ..., sibling_hash: _Optional[bytes] = ...) -> None: ...

class Correction(_message.Message):
    __slots__ = ("served", "errata_file", "node_signatures", "steps")
    SERVED_FIELD_NUMBER: _ClassVar[int]
    ERRATA_FILE_FIELD_NUMBER: _ClassVar[int]
    NODE_SIGNATURES_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    served: RecordItem
    errata_file: bytes
    node_signatures: _containers.RepeatedCompositeFieldContainer[ErrataNodeSignature]
    steps: _containers.RepeatedCompositeFieldContainer[BlockEvidence]
    def __init__(self, served: _Optional[_Union[RecordItem, _Mapping]] = ..., errata_file: _Optional[bytes] = ..., node_signatures: _Optional[_Iterable[_Union[ErrataNodeSignature, _Mapping]]] = ..., steps: _Optional[_Iterable[_Union[BlockEvidence, _Mapping]]] = ...) -> None: ...

class ErrataNodeSignature(_message.Message):
    __slots__ = ("node_id", "signature_file")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FILE_FIELD_NUMBER: _ClassVar[int]
    node_id: int
    signature_file: bytes
    def __init__(self, node_id: _Optional[int] = ..., signature_file: _Optional[bytes] = ...) -> None: ...

class Subject(_message.Message):
    __slots__ = ("transaction", "block")
    TRANSACTION_FIELD_NUMBER: _ClassVar[int]
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    transaction: TransactionSubject
    block: BlockSubject
    def __init__(self, transaction: _Optional[_Union[TransactionSubject, _Mapping]] = ..., block: _Optional[_Union[BlockSubject, _Mapping]] = ...) -> None: ...

class TransactionSubject(_message.Message):
    __slots__ = ("transaction_id", "nonce", "scheduled", "consensus_ns")
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_FIELD_NUMBER: _ClassVar[int]
    CONSENSUS_NS_FIELD_NUMBER: _ClassVar[int]
    transaction_id: str
    nonce: int
    scheduled: bool
    consensus_ns: int
    def __init__(self, transaction_id: _Optional[str] = ..., nonce: _Optional[int] = ..., scheduled: _Optional[bool] = ..., consensus_ns: _Optional[int] = ...) -> None: ...

class BlockSubject(_message.Message):
    __slots__ = ("block_number",)
    BLOCK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    block_number: int
    def __init__(self, block_number: _Optional[int] = ...) -> None: ...

class BlockEvidence(_message.Message):
    __slots__ = ("record_version", "record_file", "items", "header", "signed_hash", "signatures")
    RECORD_VERSION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FILE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    SIGNED_HASH_FIELD_NUMBER: _ClassVar[int]
    SIGNATURES_FIELD_NUMBER: _ClassVar[int]
    record_version: int
    record_file: bytes
    items: ItemRun
    header: StreamHeader
    signed_hash: bytes
    signatures: _containers.RepeatedCompositeFieldContainer[NodeSignature]
    def __init__(self, record_version: _Optional[int] = ..., record_file: _Optional[bytes] = ..., items: _Optional[_Union[ItemRun, _Mapping]] = ..., header: _Optional[_Union[StreamHeader, _Mapping]] = ..., signed_hash: _Optional[bytes] = ..., signatures: _Optional[_Iterable[_Union[NodeSignature, _Mapping]]] = ...) -> None: ...

class StreamHeader(_message.Message):
    __slots__ = ("hapi_major", "hapi_minor", "hapi_patch", "object_stream_version", "block_number", "start_running_hash")
    HAPI_MAJOR_FIELD_NUMBER: _ClassVar[int]
    HAPI_MINOR_FIELD_NUMBER: _ClassVar[int]
    HAPI_PATCH_FIELD_NUMBER: _ClassVar[int]
    OBJECT_STREAM_VERSION_FIELD_NUMBER: _ClassVar[int]
    BLOCK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    START_RUNNING_HASH_FIELD_NUMBER: _ClassVar[int]
    hapi_major: int
    hapi_minor: int
    hapi_patch: int
    object_stream_version: int
    block_number: int
    start_running_hash: bytes
    def __init__(self, hapi_major: _Optional[int] = ..., hapi_minor: _Optional[int] = ..., hapi_patch: _Optional[int] = ..., object_stream_version: _Optional[int] = ..., block_number: _Optional[int] = ..., start_running_hash: _Optional[bytes] = ...) -> None: ...

class ItemRun(_message.Message):
    __slots__ = ("running_hash_before", "entries")
    RUNNING_HASH_BEFORE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    running_hash_before: bytes
    entries: _containers.RepeatedCompositeFieldContainer[RunEntry]
    def __init__(self, running_hash_before: _Optional[bytes] = ..., entries: _Optional[_Iterable[_Union[RunEntry, _Mapping]]] = ...) -> None: ...

class RunEntry(_message.Message):
    __slots__ = ("item", "item_hashes")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    ITEM_HASHES_FIELD_NUMBER: _ClassVar[int]
    item: RecordItem
    item_hashes: bytes
    def __init__(self, item: _Optional[_Union[RecordItem, _Mapping]] = ..., item_hashes: _Optional[bytes] = ...) -> None: ...

class RecordItem(_message.Message):
    __slots__ = ("transaction", "record")
    TRANSACTION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    transaction: bytes
    record: bytes
    def __init__(self, transaction: _Optional[bytes] = ..., record: _Optional[bytes] = ...) -> None: ...

class NodeSignature(_message.Message):
    __slots__ = ("node_id", "signature")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    node_id: int
    signature: bytes
    def __init__(self, node_id: _Optional[int] = ..., signature: _Optional[bytes] = ...) -> None: ...

class SidecarEvidence(_message.Message):
    __slots__ = ("id", "content")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    id: int
    content: bytes
    def __init__(self, id: _Optional[int] = ..., content: _Optional[bytes] = ...) -> None: ...

class TrustChain(_message.Message):
    __slots__ = ("checkpoint_book", "steps", "checkpoint_packed")
    CHECKPOINT_BOOK_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_PACKED_FIELD_NUMBER: _ClassVar[int]
    checkpoint_book: bytes
    steps: _containers.RepeatedCompositeFieldContainer[BlockEvidence]
    checkpoint_packed: PackedBook
    def __init__(self, checkpoint_book: _Optional[bytes] = ..., steps: _Optional[_Iterable[_Union[BlockEvidence, _Mapping]]] = ..., checkpoint_packed: _Optional[_Union[PackedBook, _Mapping]] = ...) -> None: ...

class PackedBook(_message.Message):
    __slots__ = ("book_without_keys", "keys")
    BOOK_WITHOUT_KEYS_FIELD_NUMBER: _ClassVar[int]
    KEYS_FIELD_NUMBER: _ClassVar[int]
    book_without_keys: bytes
    keys: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, book_without_keys: _Optional[bytes] = ..., keys: _Optional[_Iterable[bytes]] = ...) -> None: ...
