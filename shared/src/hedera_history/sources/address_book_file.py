"""The bootstrap address book, read from a local file or an object URL (gs://, s3://)."""

from __future__ import annotations

from pathlib import Path

from hedera_history.books.address_book import AddressBook
from hedera_history.books.bootstrap import bootstrap_location
from hedera_history.books.json_book import parse_book_file
from hedera_history.config import Settings
from hedera_history.errors import ConfigError, SourceError
from hedera_history.networks import network_named
from hedera_history.sources.base import open_source


def read_address_book(location: str, settings: Settings) -> AddressBook:
    """The book at ``location`` (``NodeAddressBook`` bytes, or its JSON form); ConfigError when none
    is configured or unreadable."""
    return parse_book_file(read_address_book_bytes(location, settings), location.rstrip("/").rpartition("/")[2])


def read_address_book_bytes(location: str, settings: Settings) -> bytes:
    """The book file's bytes as stored (a proof's checkpoint is their SHA-384); ConfigError when none
    is configured or unreadable."""
    if not location:
        raise ConfigError("no address book configured: set HEDERA_HISTORY_ADDRESS_BOOK (a file or gs:// URL)")
    if "://" in location:
        parent, _, name = location.rstrip("/").rpartition("/")
        try:
            data = open_source(parent, settings).read(name)
        except SourceError as e:
            raise ConfigError(f"cannot read the address book: {e}", file=location) from e
        return data
    path = Path(location)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"cannot read the address book: {e}", file=location) from e
    return data


def bootstrap_book_location(settings: Settings, at_ns: int | None) -> str:
    """The configured book; when it is the network preset's own, the preset's book for a start at
    ``at_ns`` (the mirror node switches to a newer packaged book from its time on)."""
    preset = network_named(settings.network)
    return bootstrap_location(settings.address_book, preset.books if preset is not None else None, at_ns)
