"""What a client trusts: a starting address book, given as its bytes or as their SHA-384, and the
errata council whose keys authorise corrections (docs/proofs.md, "Errata")."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from hedera_history.errata.authority import CouncilPolicy, parse_council_keys
from hedera_history.errors import ConfigError, TssError
from hedera_history.formats.hashing import sha384
from hedera_history.verify.tss.ledger import LedgerPublication, publication_from_signed_transaction

_HEX_LEDGER_ID = re.compile(r"(?:0x)?([0-9a-fA-F]{64})")
_HEX_HASH = re.compile(r"(?:0x)?([0-9a-fA-F]{96})")


@dataclass(frozen=True, slots=True)
class LedgerTrust:
    """What a client trusts for block streams: the ledger id, and the publication of its roster
    when the client holds it (else a proof must prove the publication in block 0)."""

    ledger_id: bytes
    publication: LedgerPublication | None = None

    @classmethod
    def parse(cls, ledger_id: str, publication: bytes | None = None) -> LedgerTrust:
        match = _HEX_LEDGER_ID.fullmatch(ledger_id.strip())
        if match is None:
            raise ConfigError(f"a ledger id is 64 hex digits (32 bytes), got {ledger_id!r}")
        if publication is None:
            return cls(bytes.fromhex(match[1]))
        try:
            published = publication_from_signed_transaction(publication)
        except TssError as e:
            raise ConfigError(f"--ledger-publication: {e}") from e
        if published is None:
            raise ConfigError("--ledger-publication: not a ledger id publication (a SignedTransaction)")
        return cls(bytes.fromhex(match[1]), published)


@dataclass(frozen=True, slots=True)
class Trust:
    """The checkpoint a proof must start from: the SHA-384 of a ``NodeAddressBook`` file's bytes
    and, when the client has it, the bytes themselves (then a proof need not carry them)."""

    book_hash: bytes = b""
    """Empty: no address book trusted (a block-stream proof needs only ``ledger``)."""
    book: bytes | None = None
    council: CouncilPolicy | None = None
    """The errata council's keys and threshold; None: no correction can be authorised."""
    ledger: LedgerTrust | None = None
    """For block-stream proofs: the ledger id, and its roster's publication when the client holds it."""

    def with_ledger(self, ledger_id: str, publication: bytes | None = None) -> Trust:
        """``--ledger-id HEX [--ledger-publication FILE]``: the publication is block 0's
        ``SignedTransaction`` announcing the ledger (as ``generate`` writes ``ledger-id-publication.bin``)."""
        return replace(self, ledger=LedgerTrust.parse(ledger_id, publication))

    def with_council(self, keys: str, threshold: int = 0) -> Trust:
        """``--council KEYS``: hex keys, or a file of them (as ``HEDERA_HISTORY_ERRATA_COUNCIL_KEYS``);
        ``threshold`` 0 is the super-majority of the keys."""
        policy = CouncilPolicy(parse_council_keys(keys), threshold)
        if not policy.keys:
            raise ConfigError("--council: no council key given")
        return replace(self, council=policy)

    @classmethod
    def of_book(cls, data: bytes) -> Trust:
        return cls(sha384(data), data)

    @classmethod
    def of_hash(cls, value: str) -> Trust:
        match = _HEX_HASH.fullmatch(value.strip())
        if match is None:
            raise ConfigError(f"a pinned book hash is 96 hex digits (SHA-384), got {value!r}")
        return cls(bytes.fromhex(match[1]))

    @classmethod
    def parse(cls, value: str) -> Trust:
        """``--trust BOOK|HASH``: 96 hex digits pin a hash, anything else names a book file."""
        if _HEX_HASH.fullmatch(value.strip()):
            return cls.of_hash(value)
        path = Path(value)
        if not path.is_file():
            raise ConfigError(f"--trust: expected a NodeAddressBook file or a 96-hex-digit hash, got {value!r}")
        return cls.of_book(path.read_bytes())
