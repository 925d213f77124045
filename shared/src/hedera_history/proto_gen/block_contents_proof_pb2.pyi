from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MerkleSiblingHash(_message.Message):
    __slots__ = ("is_first", "sibling_hash")
    IS_FIRST_FIELD_NUMBER: _ClassVar[int]
    SIBLING_HASH_FIELD_NUMBER: _ClassVar[int]
    is_first: bool
    sibling_hash: bytes
    def __init__(self, is_first: _Optional[bool] = ..., sibling_hash: _Optional[bytes] = ...) -> None: ...

class BlockContentsProofRequest(_message.Message):
    __slots__ = ("block_number", "complete_block_item", "block_item_hash", "block_item_index")
    BLOCK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_BLOCK_ITEM_FIELD_NUMBER: _ClassVar[int]
    BLOCK_ITEM_HASH_FIELD_NUMBER: _ClassVar[int]
    BLOCK_ITEM_INDEX_FIELD_NUMBER: _ClassVar[int]
    block_number: int
    complete_block_item: bytes
    block_item_hash: bytes
    block_item_index: int
    def __init__(self, block_number: _Optional[int] = ..., complete_block_item: _Optional[bytes] = ..., block_item_hash: _Optional[bytes] = ..., block_item_index: _Optional[int] = ...) -> None: ...

class BlockContentsProof(_message.Message):
    __slots__ = ("block_item", "sibling_hashes", "block_signature")
    BLOCK_ITEM_FIELD_NUMBER: _ClassVar[int]
    SIBLING_HASHES_FIELD_NUMBER: _ClassVar[int]
    BLOCK_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    block_item: bytes
    sibling_hashes: _containers.RepeatedCompositeFieldContainer[MerkleSiblingHash]
    block_signature: bytes
    def __init__(self, block_item: _Optional[bytes] = ..., sibling_hashes: _Optional[_Iterable[_Union[MerkleSiblingHash, _Mapping]]] = ..., block_signature: _Optional[bytes] = ...) -> None: ...

class BlockContentsProofResponse(_message.Message):
    __slots__ = ("status", "block_content_proof")
    class Code(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[BlockContentsProofResponse.Code]
        SUCCESS: _ClassVar[BlockContentsProofResponse.Code]
        INVALID_REQUEST: _ClassVar[BlockContentsProofResponse.Code]
        ERROR: _ClassVar[BlockContentsProofResponse.Code]
        ITEM_NOT_FOUND: _ClassVar[BlockContentsProofResponse.Code]
        NOT_AVAILABLE: _ClassVar[BlockContentsProofResponse.Code]
        DUPLICATE_HASH_ITEM_FOUND: _ClassVar[BlockContentsProofResponse.Code]
    UNKNOWN: BlockContentsProofResponse.Code
    SUCCESS: BlockContentsProofResponse.Code
    INVALID_REQUEST: BlockContentsProofResponse.Code
    ERROR: BlockContentsProofResponse.Code
    ITEM_NOT_FOUND: BlockContentsProofResponse.Code
    NOT_AVAILABLE: BlockContentsProofResponse.Code
    DUPLICATE_HASH_ITEM_FOUND: BlockContentsProofResponse.Code
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BLOCK_CONTENT_PROOF_FIELD_NUMBER: _ClassVar[int]
    status: BlockContentsProofResponse.Code
    block_content_proof: BlockContentsProof
    def __init__(self, status: _Optional[_Union[BlockContentsProofResponse.Code, str]] = ..., block_content_proof: _Optional[_Union[BlockContentsProof, _Mapping]] = ...) -> None: ...
