"""What one TSS check costs, on the real ``blocks/tss-schnorr`` blocks (4-node roster, hinTS n = 8).

Per check, the median of ``SAMPLES`` runs in thread CPU time (``time.thread_time``):

- ``hinTS``: ``verify_hints`` over parsed key and signature (seven pairing products, hash-to-G2,
  the Fiat–Shamir hash); ``hinTS parse``: reading the 1096 + 1632 bytes into validated points;
- ``Schnorr endorsement``: the rotation message (Poseidon over the 1096-byte key) and the aggregate
  Schnorr check on Python integers; ``Poseidon`` alone;
- ``state-proof walk``: block 1's three Merkle paths up to block 5's root;
- ``whole signature``: ``verify_tss_signature`` as a block reader calls it (split, endorsement,
  parse, hinTS) with a fresh trust; ``whole, endorsement seen``: the same once the trust has checked
  this endorsement (every later block until WRAPS settles); ``whole state proof``: walk, then the
  whole signature with a fresh trust;
- ``ledger roster``: reading block 0's publication with its four proofs of knowledge (once per ledger);
- ``WRAPS proof``: parsing the block-signing tool's compressed genesis WRAPS proof and its decider
  check (fold, Groth16, two KZG openings) under block 0's WRAPS key, once per new hinTS key;
  ``WRAPS key parse``: reading that 1768-byte key (its G2 points checked for the subgroup), once per ledger.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from hedera_history.verify.tss import TssTrust, verify_state_proof, verify_tss_signature, walk_state_proof
from hedera_history.verify.tss.hints import (
    SIGNATURE_BYTES,
    VERIFICATION_KEY_BYTES,
    HintsSignature,
    HintsVerificationKey,
    verify_hints,
)
from hedera_history.verify.tss.poseidon import hash_bytes
from hedera_history.verify.tss.schnorr import SchnorrEndorsement, endorsed_message, verify_endorsement
from hedera_history.verify.tss.wraps import WrapsProof, WrapsVerificationKey, verify_decider

from bench.machine import reports_machine
from bench.timing import timed

SAMPLES = 25


def median_ms(action: Callable[[], object]) -> float:
    action()  # warm: constants and caches built once per process are not a check's cost
    return 1000 * statistics.median(timed(action, time.thread_time) for _ in range(SAMPLES))


@reports_machine
def main() -> None:
    from tests.conformance.tss_blocks import (  # noqa: PLC0415 (found from the checkout)
        WRAPS_PROOF,
        ledger_publication,
        load_block,
    )
    from tests.data_dir import real_data_dir  # noqa: PLC0415

    data = real_data_dir()
    block_zero, block_one = load_block(data, 0), load_block(data, 1)
    publication = ledger_publication(block_zero)
    signature = block_zero.signature
    key_bytes = signature[:VERIFICATION_KEY_BYTES]
    hints_bytes = signature[VERIFICATION_KEY_BYTES : VERIFICATION_KEY_BYTES + SIGNATURE_BYTES]
    endorsement_bytes = signature[VERIFICATION_KEY_BYTES + SIGNATURE_BYTES :]
    key, hints_signature = HintsVerificationKey.parse(key_bytes), HintsSignature.parse(hints_bytes)
    wraps_bytes = (data / WRAPS_PROOF).read_bytes()
    wraps_key_bytes = publication.history_proof_verification_key
    wraps_key = WrapsVerificationKey.parse(wraps_key_bytes)

    def endorse() -> object:
        message = endorsed_message(publication.ledger_id, key_bytes)
        return verify_endorsement(publication.roster, message, SchnorrEndorsement.parse(endorsement_bytes))

    seen = TssTrust(publication)
    verify_tss_signature(block_zero.root, signature, seen)
    checks: dict[str, Callable[[], object]] = {
        "hinTS": lambda: verify_hints(block_zero.root, key, hints_signature),
        "hinTS parse": lambda: (HintsVerificationKey.parse(key_bytes), HintsSignature.parse(hints_bytes)),
        "Schnorr endorsement": endorse,
        "Poseidon (1096 B)": lambda: hash_bytes(key_bytes),
        "state-proof walk": lambda: walk_state_proof(block_one.paths, block_one.root),
        "whole signature": lambda: verify_tss_signature(block_zero.root, signature, TssTrust(publication)),
        "whole, endorsement seen": lambda: verify_tss_signature(block_zero.root, signature, seen),
        "whole state proof": lambda: verify_state_proof(
            block_one.root, block_one.paths, block_one.signature, TssTrust(publication)
        ),
        "ledger roster": lambda: ledger_publication(block_zero),
        "WRAPS proof": lambda: verify_decider(wraps_key, WrapsProof.parse(wraps_bytes)),
        "WRAPS key parse": lambda: WrapsVerificationKey.parse(wraps_key_bytes),
    }
    print(f"median of {SAMPLES} runs, thread CPU")
    for name, action in checks.items():
        print(f"  {name:<22} {median_ms(action):8.2f} ms")


if __name__ == "__main__":
    main()
