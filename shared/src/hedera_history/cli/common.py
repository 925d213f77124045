"""Option handling that several commands share."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import click

from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.verify.address_book import AddressBook, parse_address_book
from hedera_history.verify.consensus import parse_consensus_ratio


def consensus_ratio(option: str | None, settings: Settings) -> Fraction:
    """The flag when given (``1/3`` or ``0.25``), else the configured ratio."""
    return parse_consensus_ratio(option if option is not None else settings.consensus_ratio)


def load_address_book(location: str) -> AddressBook:
    """The bootstrap address book from a local file; a clear usage error when none is configured."""
    if not location:
        raise click.UsageError("an address book is needed: --address-book FILE or HEDERA_HISTORY_ADDRESS_BOOK")
    if "://" in location:
        raise ConfigError(f"the address book must be a local file here, got {location}")
    path = Path(location)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"cannot read the address book: {e}", file=location) from e
    return parse_address_book(data, path.name)
