"""The stream generator: valid, signed record streams (V6, or across the format eras), block streams
and streams that cross the cutover, with their ground truth.

``generate_stream(GeneratorConfig(...))`` builds everything in memory; ``write_stream`` puts it on
disk; ``tamper``, ``tamper_block``, ``drop_signatures`` and ``only_nodes`` make the broken variants
tests need.
See docs/generator.md.
"""

from hedera_history.gen.block_tamper import BlockTamper, tamper_block
from hedera_history.gen.config_and_output import GeneratedPeriod, GeneratedStream, GeneratorConfig, NodeInfo
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.tamper import TamperTarget, drop_signatures, only_nodes, tamper
from hedera_history.gen.writer import generate_into, write_stream

__all__ = [
    "BlockTamper",
    "GeneratedPeriod",
    "GeneratedStream",
    "GeneratorConfig",
    "NodeInfo",
    "TamperTarget",
    "drop_signatures",
    "generate_into",
    "generate_stream",
    "only_nodes",
    "tamper",
    "tamper_block",
    "write_stream",
]
