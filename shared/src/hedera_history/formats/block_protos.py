"""The block-stream protobuf modules, apart from ``hapi`` so that only block readers load them.

``hapi`` registers the bare SDK package first (its import is what makes these load without the
SDK's client); the block modules pull in every state message, which the record-stream path and
the functions' cold starts never need.
"""

from __future__ import annotations

from hedera_history import hapi

_SDK_REGISTERED = hapi.__name__  # imported first: it registers the bare SDK package the imports below load from

from hiero_sdk_python.hapi.block.stream import block_item_pb2 as block_item  # noqa: E402
from hiero_sdk_python.hapi.block.stream.output import block_header_pb2 as block_header  # noqa: E402
from hiero_sdk_python.hapi.block.stream.output import state_changes_pb2 as state_changes  # noqa: E402
from hiero_sdk_python.hapi.block.stream.output import transaction_output_pb2 as transaction_output  # noqa: E402
from hiero_sdk_python.hapi.block.stream.output import transaction_result_pb2 as transaction_result  # noqa: E402
from hiero_sdk_python.hapi.block.stream.trace import trace_data_pb2 as trace_data  # noqa: E402

BlockHeader = block_header.BlockHeader
BlockItem = block_item.BlockItem
StateChanges = state_changes.StateChanges
TraceData = trace_data.TraceData
TransactionOutput = transaction_output.TransactionOutput
TransactionResult = transaction_result.TransactionResult

__all__ = [
    "BlockHeader",
    "BlockItem",
    "StateChanges",
    "TraceData",
    "TransactionOutput",
    "TransactionResult",
    "block_header",
    "block_item",
    "state_changes",
    "trace_data",
    "transaction_output",
    "transaction_result",
]
