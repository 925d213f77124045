"""``hedera-history proof get`` from files and ``proof verify``: exit 0 with a one-line verdict,
or the typed reason with its own exit code."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.cli.proof_cmd import EXIT_CODES
from hedera_history.errors import ProofBookError, ProofSignatureError
from hedera_history.formats.hashing import sha384
from hedera_history.proofs.codec import decode_bundle, encode_bundle

from tests.data_dir import real_data_dir
from tests.unit.proofs.conftest import real_book_path


def _get(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "proof.bin"
    book = real_book_path("v6")
    args = ["proof", "get", "--from-dir", str(real_data_dir() / "v6"), "--address-book", str(book), "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


def test_get_then_verify_with_the_book(tmp_path: Path) -> None:
    proof = _get(tmp_path, "--at", "1657701971304284003", "--sidecars")
    result = CliRunner().invoke(cli, ["proof", "verify", str(proof), "--trust", str(real_book_path("v6"))])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("verified: transaction 0.0.2-1657701910-000000144")
    assert len(result.stdout.strip().splitlines()) == 1


def test_get_by_transaction_id_and_verify_with_a_pinned_hash(tmp_path: Path) -> None:
    proof = _get(tmp_path, "--transaction", "0.0.57-1657701907-000000142", "--json")
    assert proof.read_bytes().startswith(b"{")
    pinned = sha384(real_book_path("v6").read_bytes()).hex()
    result = CliRunner().invoke(cli, ["proof", "verify", str(proof), "--trust", pinned])
    assert result.exit_code == 0, result.output
    assert "block 5" in result.stdout


def test_a_block_proof(tmp_path: Path) -> None:
    proof = _get(tmp_path, "--block", "6")
    result = CliRunner().invoke(cli, ["proof", "verify", str(proof), "--trust", str(real_book_path("v6"))])
    assert result.exit_code == 0 and "block 6" in result.stdout


def test_a_tampered_signature_exits_with_its_reason(tmp_path: Path) -> None:
    proof = _get(tmp_path, "--block", "6")
    bundle = decode_bundle(proof.read_bytes())
    signature = bundle.block.signatures[0]
    signature.signature = bytes([signature.signature[0] ^ 1]) + signature.signature[1:]
    proof.write_bytes(encode_bundle(bundle))
    result = CliRunner().invoke(cli, ["proof", "verify", str(proof), "--trust", str(real_book_path("v6"))])
    assert result.exit_code == EXIT_CODES[ProofSignatureError]
    assert "refused (proof_signature)" in result.output


def test_another_trusted_book_exits_with_the_book_reason(tmp_path: Path) -> None:
    proof = _get(tmp_path, "--block", "5")
    result = CliRunner().invoke(cli, ["proof", "verify", str(proof), "--trust", str(real_book_path("v5"))])
    assert result.exit_code == EXIT_CODES[ProofBookError]
    assert "refused (proof_book)" in result.output
