"""Option handling that several commands share."""

from __future__ import annotations

from fractions import Fraction

import click

from hedera_history.config import Settings
from hedera_history.sources.address_book_file import read_address_book
from hedera_history.verify.address_book import AddressBook
from hedera_history.verify.consensus import parse_consensus_ratio


def consensus_ratio(option: str | None, settings: Settings) -> Fraction:
    """The flag when given (``1/3`` or ``0.25``), else the configured ratio."""
    return parse_consensus_ratio(option if option is not None else settings.consensus_ratio)


def load_address_book(location: str, settings: Settings | None = None) -> AddressBook:
    """The bootstrap address book (file or object URL); a clear usage error when none is configured."""
    if not location:
        raise click.UsageError("an address book is needed: --address-book FILE or HEDERA_HISTORY_ADDRESS_BOOK")
    return read_address_book(location, settings or Settings.from_env())
