"""XMD expansion against RFC 9380's vectors, and the arkworks 0.4 zero pad the TSS transcripts need."""

from __future__ import annotations

import pytest
from hedera_history.verify.tss.hash_to_field import element_bytes, expand_message_xmd, hash_to_field
from hedera_history.verify.tss.serialization import BLS12_381_R

RFC_DST = b"QUUX-V01-CS02-with-expander-SHA256-128"
SHA256_BLOCK = 64


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (b"", "68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235"),
        (b"abc", "d8ccab23b5985ccea865c6c97b6e5b8350e794e603b4b97902f53a8a0d605615"),
    ],
)
def test_expansion_with_the_sha256_block_pad_is_rfc_9380(message: bytes, expected: str) -> None:
    assert expand_message_xmd(message, RFC_DST, 32, zero_pad=SHA256_BLOCK).hex() == expected


def test_the_pad_changes_the_output() -> None:
    rfc = expand_message_xmd(b"abc", RFC_DST, 48, zero_pad=SHA256_BLOCK)
    arkworks = expand_message_xmd(b"abc", RFC_DST, 48, zero_pad=48)
    assert len(rfc) == len(arkworks) == 48
    assert rfc != arkworks


def test_an_element_takes_its_bits_plus_128_in_bytes() -> None:
    assert element_bytes(BLS12_381_R) == 48


def test_an_element_is_its_expansion_padded_with_its_own_length_and_reduced() -> None:
    expanded = expand_message_xmd(b"x", b"tag", 48, zero_pad=48)
    assert hash_to_field(b"x", b"tag", BLS12_381_R) == int.from_bytes(expanded, "big") % BLS12_381_R


def test_an_oversized_tag_is_hashed_first() -> None:
    long_tag = b"t" * 300
    assert len(expand_message_xmd(b"m", long_tag, 32, zero_pad=SHA256_BLOCK)) == 32
    assert expand_message_xmd(b"m", long_tag, 32, zero_pad=SHA256_BLOCK) != expand_message_xmd(
        b"m", long_tag[:255], 32, zero_pad=SHA256_BLOCK
    )
