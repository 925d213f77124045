"""The format writers reproduce the network's real files: every real signature file (V2, V5, V6)
is written again byte for byte from its parsed fields. (Record files: tests/unit/store/test_originals.py.)"""

from __future__ import annotations

from pathlib import Path

from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.formats.signature import write_signature_v2, write_signature_v5, write_signature_v6


def test_real_signature_files_are_written_byte_for_byte(hedera_data: Path) -> None:
    paths = sorted(hedera_data.glob("v*/recordstreams/record0.0.*/*.rcd_sig"))
    seen = set()
    for path in paths:
        data = path.read_bytes()
        signature = parse_signature_file(data, path.name)
        seen.add(signature.version)
        if signature.version == 2:
            written = write_signature_v2(signature.file_hash, signature.file_signature)
        else:
            assert signature.metadata_hash is not None and signature.metadata_signature is not None
            writer = write_signature_v5 if signature.version == 5 else write_signature_v6
            written = writer(
                signature.file_hash, signature.file_signature, signature.metadata_hash, signature.metadata_signature
            )
        assert written == data, path
    assert seen == {2, 5, 6} and len(paths) == 32
