"""The one place HAPI protobuf modules are imported from.

The generated modules ship inside ``hiero-sdk-python``. Importing them normally runs that SDK's
package ``__init__``, which loads the whole client (about half a second, every cold start of every
function). We only need the generated messages, so when the SDK is not already imported we register
a bare package object for it whose search path is the installed package directory: the generated
modules import each other by absolute name and load as usual, without the SDK's client code.
"""

from __future__ import annotations

import importlib.util
import sys
import types


def _register_bare_sdk_package() -> None:
    if "hiero_sdk_python" in sys.modules:
        return
    spec = importlib.util.find_spec("hiero_sdk_python")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("hiero-sdk-python is not installed; it provides the HAPI protobuf modules")
    package = types.ModuleType("hiero_sdk_python")
    package.__path__ = list(spec.submodule_search_locations)
    package.__spec__ = spec
    sys.modules["hiero_sdk_python"] = package


_register_bare_sdk_package()

from hiero_sdk_python.hapi.services import basic_types_pb2 as basic_types  # noqa: E402
from hiero_sdk_python.hapi.services import response_code_pb2 as response_code  # noqa: E402
from hiero_sdk_python.hapi.services import timestamp_pb2 as timestamp  # noqa: E402
from hiero_sdk_python.hapi.services import transaction_contents_pb2 as transaction_contents  # noqa: E402
from hiero_sdk_python.hapi.services import transaction_pb2 as transaction  # noqa: E402
from hiero_sdk_python.hapi.services import transaction_receipt_pb2 as transaction_receipt  # noqa: E402
from hiero_sdk_python.hapi.services import transaction_record_pb2 as transaction_record  # noqa: E402
from hiero_sdk_python.hapi.streams import contract_action_pb2 as contract_action  # noqa: E402
from hiero_sdk_python.hapi.streams import contract_bytecode_pb2 as contract_bytecode  # noqa: E402
from hiero_sdk_python.hapi.streams import contract_state_change_pb2 as contract_state_change  # noqa: E402
from hiero_sdk_python.hapi.streams import hash_object_pb2 as hash_object  # noqa: E402
from hiero_sdk_python.hapi.streams import record_stream_file_pb2 as record_stream_file  # noqa: E402
from hiero_sdk_python.hapi.streams import sidecar_file_pb2 as sidecar_file  # noqa: E402
from hiero_sdk_python.hapi.streams import signature_file_pb2 as signature_file  # noqa: E402

# Messages used across the project, by their HAPI names.
NodeAddressBook = basic_types.NodeAddressBook
NodeAddress = basic_types.NodeAddress
AccountID = basic_types.AccountID
TransactionID = basic_types.TransactionID
Timestamp = timestamp.Timestamp
Transaction = transaction.Transaction
SignedTransaction = transaction_contents.SignedTransaction
TransactionBody = transaction.TransactionBody
TransactionRecord = transaction_record.TransactionRecord
TransactionReceipt = transaction_receipt.TransactionReceipt
RecordStreamFile = record_stream_file.RecordStreamFile
RecordStreamItem = record_stream_file.RecordStreamItem
SidecarMetadata = record_stream_file.SidecarMetadata
SidecarFile = sidecar_file.SidecarFile
TransactionSidecarRecord = sidecar_file.TransactionSidecarRecord
SignatureFile = signature_file.SignatureFile
SignatureObject = signature_file.SignatureObject
HashObject = hash_object.HashObject
ResponseCodeEnum = response_code.ResponseCodeEnum

__all__ = [
    "AccountID",
    "HashObject",
    "NodeAddress",
    "NodeAddressBook",
    "RecordStreamFile",
    "RecordStreamItem",
    "ResponseCodeEnum",
    "SidecarFile",
    "SidecarMetadata",
    "SignatureFile",
    "SignatureObject",
    "SignedTransaction",
    "Timestamp",
    "Transaction",
    "TransactionBody",
    "TransactionID",
    "TransactionReceipt",
    "TransactionRecord",
    "TransactionSidecarRecord",
    "basic_types",
    "contract_action",
    "contract_bytecode",
    "contract_state_change",
    "hash_object",
    "record_stream_file",
    "response_code",
    "sidecar_file",
    "signature_file",
    "timestamp",
    "transaction",
    "transaction_contents",
    "transaction_receipt",
    "transaction_record",
]
