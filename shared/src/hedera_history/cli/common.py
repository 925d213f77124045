"""Option handling that several commands share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import click

from hedera_history.books.address_book import AddressBook
from hedera_history.config import Settings
from hedera_history.networks import NAMES
from hedera_history.networks.block_numbers import BlockPin
from hedera_history.sources.address_book_file import bootstrap_book_location, read_address_book
from hedera_history.sources.local_periods import LocalPeriod, find_local_periods
from hedera_history.verify.block_pin import Numbering, numbering_for
from hedera_history.verify.consensus import parse_consensus_ratio


def consensus_ratio(option: str | None, settings: Settings) -> Fraction:
    """The flag when given (``1/3`` or ``0.25``), else the configured ratio."""
    return parse_consensus_ratio(option if option is not None else settings.consensus_ratio)


def load_address_book(location: str, settings: Settings | None = None) -> AddressBook:
    """The bootstrap address book (file or object URL); a clear usage error when none is configured."""
    if not location:
        raise click.UsageError("an address book is needed: --address-book FILE or HEDERA_HISTORY_ADDRESS_BOOK")
    return read_address_book(location, settings or Settings.from_env())


def network_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--network``: a preset (docs/networks.md)."""
    return click.option(
        "--network",
        type=click.Choice(NAMES, case_sensitive=False),
        default=None,
        help="Network preset: bucket, layout, requester pays, bootstrap book and block pin, each unless "
        "given explicitly; custom presets nothing [HEDERA_HISTORY_NETWORK].",
    )(command)


def network_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--network`` and ``--block-pin``, for commands that read streams."""
    command = click.option(
        "--block-pin",
        default=None,
        metavar="END_NS:BLOCK",
        help="The record file with this consensus end is this block; files before V6 count from it "
        "(the preset's unless --start-block is given) [HEDERA_HISTORY_BLOCK_PIN].",
    )(command)
    return network_option(command)


def address_book_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--address-book FILE``: the bootstrap book (a preset's by default, with ``--network``)."""
    return click.option(
        "--address-book",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="NodeAddressBook file (0.0.102) in force at the first block; default the --network "
        "preset's [HEDERA_HISTORY_ADDRESS_BOOK].",
    )(command)


@dataclass(frozen=True)
class LocalStream:
    """A folder's periods, the book in force at the first of them, and how they are numbered."""

    periods: list[LocalPeriod]
    book: AddressBook
    numbering: Numbering
    book_location: str
    """Where ``book`` was read (a file or object URL)."""


def local_stream(directory: Path, settings: Settings, periods: list[LocalPeriod] | None = None) -> LocalStream:
    """What ``verify`` and ``load`` read from DIR (its ``periods``, when already found); a
    ClickException when it holds no stream files."""
    periods = find_local_periods(directory) if periods is None else periods
    if not periods:
        raise click.ClickException(f"no stream files in a known bucket layout under {directory}")
    location = bootstrap_book_location(settings, periods[0].consensus_ns)
    book = load_address_book(location)
    numbering = numbering_for(
        periods,
        start_block=settings.start_block,
        pin=BlockPin.parse(settings.block_pin),
        max_decompressed=settings.max_decompressed_bytes,
    )
    return LocalStream(periods, book, numbering, location)


def local_stream_arguments(command: Callable[..., Any]) -> Callable[..., Any]:
    """DIR and ``--address-book``, for commands that read a stream from a folder."""
    command = address_book_option(command)
    return click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))(command)


def local_stream_settings(
    address_book: Path | None,
    start_block: int | None,
    sidecars: bool | None,
    network: str | None,
    block_pin: str | None,
    **more: Any,
) -> Settings:
    """The settings for reading a folder's stream: the environment's, then the flags given
    (``more``: other settings' flags, by setting name)."""
    return Settings.from_env(
        address_book=str(address_book) if address_book else None,
        start_block=start_block,
        sidecars_enabled=sidecars,
        network=network,
        block_pin=block_pin,
        **more,
    )
