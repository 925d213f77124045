from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Timestamp(_message.Message):
    __slots__ = ("seconds", "nanos")
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    NANOS_FIELD_NUMBER: _ClassVar[int]
    seconds: int
    nanos: int
    def __init__(self, seconds: _Optional[int] = ..., nanos: _Optional[int] = ...) -> None: ...

class RecordStreamErrataTransactionBody(_message.Message):
    __slots__ = ("consensus_time_of_error", "correct_item", "compensating_items")
    CONSENSUS_TIME_OF_ERROR_FIELD_NUMBER: _ClassVar[int]
    CORRECT_ITEM_FIELD_NUMBER: _ClassVar[int]
    COMPENSATING_ITEMS_FIELD_NUMBER: _ClassVar[int]
    consensus_time_of_error: Timestamp
    correct_item: bytes
    compensating_items: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, consensus_time_of_error: _Optional[_Union[Timestamp, _Mapping]] = ..., correct_item: _Optional[bytes] = ..., compensating_items: _Optional[_Iterable[bytes]] = ...) -> None: ...

class CouncilSignature(_message.Message):
    __slots__ = ("public_key", "signature")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    public_key: bytes
    signature: bytes
    def __init__(self, public_key: _Optional[bytes] = ..., signature: _Optional[bytes] = ...) -> None: ...

class ErrataFile(_message.Message):
    __slots__ = ("version", "consensus_time", "body", "council_signatures")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CONSENSUS_TIME_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    COUNCIL_SIGNATURES_FIELD_NUMBER: _ClassVar[int]
    version: int
    consensus_time: Timestamp
    body: bytes
    council_signatures: _containers.RepeatedCompositeFieldContainer[CouncilSignature]
    def __init__(self, version: _Optional[int] = ..., consensus_time: _Optional[_Union[Timestamp, _Mapping]] = ..., body: _Optional[bytes] = ..., council_signatures: _Optional[_Iterable[_Union[CouncilSignature, _Mapping]]] = ...) -> None: ...
