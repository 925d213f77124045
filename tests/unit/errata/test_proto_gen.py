"""The checked-in generated code is what proto/generate.py makes from proto/ today."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from hedera_history.proto_gen import errata_pb2

ROOT = Path(__file__).resolve().parents[3]


def _generate_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("proto_generate", ROOT / "proto" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("proto_generate", module)
    spec.loader.exec_module(module)
    return module


def test_checked_in_generated_code_is_current(tmp_path: Path) -> None:
    generate = _generate_module()
    written = generate.generate(tmp_path)
    assert {p.name for p in written} == {
        "__init__.py",
        "block_contents_proof_pb2.py",
        "block_contents_proof_pb2.pyi",
        "block_node_pb2.py",
        "block_node_pb2.pyi",
        "errata_pb2.py",
        "errata_pb2.pyi",
        "proof_pb2.py",
        "proof_pb2.pyi",
    }
    assert generate.stale_files(tmp_path) == []


def test_generated_messages_carry_their_real_module_name() -> None:
    assert errata_pb2.ErrataFile.__module__ == "hedera_history.proto_gen.errata_pb2"
    assert errata_pb2.DESCRIPTOR.name == "hedera_history/errata.proto"
