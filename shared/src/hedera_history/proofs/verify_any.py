"""Check any proof this project reads, offline: a record-stream bundle against the trusted book
(``proofs.verify``), a block-stream bundle (``native_block``) against the trusted ledger
(``proofs.verify_native``), or the block node's proof shape against the trusted ledger's
publication (``proofs.block_contents``). What ``proof verify`` calls."""

from __future__ import annotations

from fractions import Fraction

from hedera_history.errors import ProofBookError, ProofFormatError, ProofLedgerError
from hedera_history.proofs.block_contents import ContentsVerdict, decode_block_contents, verify_block_contents
from hedera_history.proofs.codec import decode_bundle
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import Verdict, verify_bundle
from hedera_history.proofs.verify_native import NativeVerdict, verify_native_bundle
from hedera_history.verify.consensus import DEFAULT_RATIO

AnyVerdict = Verdict | NativeVerdict | ContentsVerdict


def verify_any_proof(data: bytes, trust: Trust, *, ratio: Fraction = DEFAULT_RATIO) -> AnyVerdict:
    """The verdict on a proof's bytes (canonical protobuf or JSON), or a ``ProofError`` leaf."""
    try:
        bundle = decode_bundle(data)
    except ProofFormatError:
        contents = decode_block_contents(data)
        if contents is None:
            raise
        if trust.ledger is None:
            raise ProofLedgerError("a block node proof is checked against a ledger: none trusted") from None
        return verify_block_contents(contents, trust.ledger)
    if bundle.HasField("native_block"):
        if bundle.HasField("block") or bundle.HasField("trust") or bundle.HasField("correction") or bundle.sidecars:
            raise ProofFormatError("a block-stream proof carries no record file evidence")
        if trust.ledger is None:
            raise ProofLedgerError("a block-stream proof is checked against a ledger id: none trusted")
        return verify_native_bundle(bundle, trust.ledger)
    if not trust.book_hash:
        raise ProofBookError("a record-stream proof is checked against an address book: none trusted")
    return verify_bundle(bundle, trust, ratio=ratio)
