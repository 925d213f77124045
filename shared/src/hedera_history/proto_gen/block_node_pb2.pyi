from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BlockItemSet(_message.Message):
    __slots__ = ("block_items",)
    BLOCK_ITEMS_FIELD_NUMBER: _ClassVar[int]
    block_items: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, block_items: _Optional[_Iterable[bytes]] = ...) -> None: ...

class BlockEnd(_message.Message):
    __slots__ = ("block_number",)
    BLOCK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    block_number: int
    def __init__(self, block_number: _Optional[int] = ...) -> None: ...

class ServerStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ServerStatusResponse(_message.Message):
    __slots__ = ("first_available_block", "last_available_block", "only_latest_state", "next_expected_block")
    FIRST_AVAILABLE_BLOCK_FIELD_NUMBER: _ClassVar[int]
    LAST_AVAILABLE_BLOCK_FIELD_NUMBER: _ClassVar[int]
    ONLY_LATEST_STATE_FIELD_NUMBER: _ClassVar[int]
    NEXT_EXPECTED_BLOCK_FIELD_NUMBER: _ClassVar[int]
    first_available_block: int
    last_available_block: int
    only_latest_state: bool
    next_expected_block: int
    def __init__(self, first_available_block: _Optional[int] = ..., last_available_block: _Optional[int] = ..., only_latest_state: _Optional[bool] = ..., next_expected_block: _Optional[int] = ...) -> None: ...

class BlockRequest(_message.Message):
    __slots__ = ("block_number", "retrieve_latest")
    BLOCK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    RETRIEVE_LATEST_FIELD_NUMBER: _ClassVar[int]
    block_number: int
    retrieve_latest: bool
    def __init__(self, block_number: _Optional[int] = ..., retrieve_latest: _Optional[bool] = ...) -> None: ...

class BlockResponse(_message.Message):
    __slots__ = ("status", "block")
    class Code(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[BlockResponse.Code]
        SUCCESS: _ClassVar[BlockResponse.Code]
        INVALID_REQUEST: _ClassVar[BlockResponse.Code]
        ERROR: _ClassVar[BlockResponse.Code]
        NOT_FOUND: _ClassVar[BlockResponse.Code]
        NOT_AVAILABLE: _ClassVar[BlockResponse.Code]
    UNKNOWN: BlockResponse.Code
    SUCCESS: BlockResponse.Code
    INVALID_REQUEST: BlockResponse.Code
    ERROR: BlockResponse.Code
    NOT_FOUND: BlockResponse.Code
    NOT_AVAILABLE: BlockResponse.Code
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    status: BlockResponse.Code
    block: bytes
    def __init__(self, status: _Optional[_Union[BlockResponse.Code, str]] = ..., block: _Optional[bytes] = ...) -> None: ...

class SubscribeStreamRequest(_message.Message):
    __slots__ = ("start_block_number", "end_block_number")
    START_BLOCK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    END_BLOCK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    start_block_number: int
    end_block_number: int
    def __init__(self, start_block_number: _Optional[int] = ..., end_block_number: _Optional[int] = ...) -> None: ...

class SubscribeStreamResponse(_message.Message):
    __slots__ = ("status", "block_items", "end_of_block")
    class Code(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[SubscribeStreamResponse.Code]
        SUCCESS: _ClassVar[SubscribeStreamResponse.Code]
        INVALID_REQUEST: _ClassVar[SubscribeStreamResponse.Code]
        ERROR: _ClassVar[SubscribeStreamResponse.Code]
        INVALID_START_BLOCK_NUMBER: _ClassVar[SubscribeStreamResponse.Code]
        INVALID_END_BLOCK_NUMBER: _ClassVar[SubscribeStreamResponse.Code]
        NOT_AVAILABLE: _ClassVar[SubscribeStreamResponse.Code]
    UNKNOWN: SubscribeStreamResponse.Code
    SUCCESS: SubscribeStreamResponse.Code
    INVALID_REQUEST: SubscribeStreamResponse.Code
    ERROR: SubscribeStreamResponse.Code
    INVALID_START_BLOCK_NUMBER: SubscribeStreamResponse.Code
    INVALID_END_BLOCK_NUMBER: SubscribeStreamResponse.Code
    NOT_AVAILABLE: SubscribeStreamResponse.Code
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BLOCK_ITEMS_FIELD_NUMBER: _ClassVar[int]
    END_OF_BLOCK_FIELD_NUMBER: _ClassVar[int]
    status: SubscribeStreamResponse.Code
    block_items: BlockItemSet
    end_of_block: BlockEnd
    def __init__(self, status: _Optional[_Union[SubscribeStreamResponse.Code, str]] = ..., block_items: _Optional[_Union[BlockItemSet, _Mapping]] = ..., end_of_block: _Optional[_Union[BlockEnd, _Mapping]] = ...) -> None: ...
