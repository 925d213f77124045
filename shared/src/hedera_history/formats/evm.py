"""EVM values a record carries that the block stream leaves to the reader: log blooms and Keccak hashes.

Keccak-256 (the pre-standard SHA-3 Ethereum uses) comes from pycryptodome, which the HAPI
protobuf package already depends on. A log's bloom is Ethereum's 2048-bit filter over the
logger's address and each topic (data is not in it); the address of a contract given by number is
its long-zero form, 12 zero bytes then the number, as the reference writes it whatever the shard
and realm.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from Crypto.Hash import keccak

BLOOM_BYTES = 256
WORD_BYTES = 32
EVM_ADDRESS_BYTES = 20


def keccak256(data: bytes) -> bytes:
    return keccak.new(digest_bits=256, data=data).digest()


def long_zero_address(number: int) -> bytes:
    return bytes(12) + number.to_bytes(8, "big")


def contract_address(contract_id: Any) -> bytes:
    """A ContractID as an EVM address: its own address, or the long-zero form of its number."""
    if contract_id.WhichOneof("contract") == "evm_address":
        return bytes(contract_id.evm_address)
    return long_zero_address(contract_id.contractNum)


def long_zero_number(address: bytes) -> int | None:
    """The entity number of a long-zero address (12 zero bytes, then the number), else None."""
    if len(address) != EVM_ADDRESS_BYTES or any(address[:12]):
        return None
    return int.from_bytes(address[12:], "big")


def _add_to_bloom(bloom: bytearray, value: bytes) -> None:
    digest = keccak256(value)
    for i in (0, 2, 4):
        bit = ((digest[i] << 8) | digest[i + 1]) & 2047
        bloom[BLOOM_BYTES - 1 - bit // 8] |= 1 << (bit % 8)


def log_bloom(address: bytes, topics: Iterable[bytes]) -> bytes:
    """The bloom of one log: its address and its topics, each left-padded to a 32-byte word."""
    bloom = bytearray(BLOOM_BYTES)
    _add_to_bloom(bloom, address)
    for topic in topics:
        _add_to_bloom(bloom, topic.rjust(WORD_BYTES, b"\x00"))
    return bytes(bloom)


def combined_bloom(blooms: Iterable[bytes]) -> bytes:
    """The bloom of several logs: their blooms OR-ed together."""
    combined = 0
    for bloom in blooms:
        combined |= int.from_bytes(bloom, "big")
    return combined.to_bytes(BLOOM_BYTES, "big")
