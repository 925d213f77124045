"""Proof bundles for the query API: the deployment's bootstrap book (read once per instance) and
the store's proof builders, with their errors turned into the API's (docs/proofs.md)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, TypeVar

from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError, ServerError
from hedera_history.api.parse import parse_transaction_id
from hedera_history.errors import ConfigError, HistoryError, ObjectNotFoundError, ProofUnsignedBlockError, StoreError
from hedera_history.logs import event
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.consensus import DEFAULT_RATIO

if TYPE_CHECKING:
    from hedera_history.config import Settings

logger = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class ProofSettings:
    """What a proof starts from: the bootstrap book's bytes as stored (clients pin their SHA-384),
    the first block of the deployment's numbering, and the share of stake the signatures reach."""

    bootstrap_book: bytes
    first_block: int = 0
    ratio: Fraction = DEFAULT_RATIO


ProofConfig = Callable[[], ProofSettings]
"""Called only when a proof is asked for; raises NotServedError when no book is configured."""


def no_proofs() -> ProofSettings:
    raise NotServedError("proofs are not served here: no bootstrap address book is configured")


def settings_proofs(settings: Settings | None = None) -> ProofConfig:
    """The deployment's settings (``address_book``, ``first_block``, ``consensus_ratio``; default
    the environment's), the book read on first use and kept for the instance's life; a failed read
    is retried next time."""
    made: list[ProofSettings] = []
    lock = threading.Lock()

    def get() -> ProofSettings:
        with lock:
            if not made:
                made.append(_from_settings(settings))
            return made[0]

    return get


def _from_settings(given: Settings | None) -> ProofSettings:
    from hedera_history.config import Settings  # noqa: PLC0415
    from hedera_history.sources.address_book_file import read_address_book_bytes  # noqa: PLC0415
    from hedera_history.verify.consensus import parse_consensus_ratio  # noqa: PLC0415

    settings = given or Settings.from_env()
    if not settings.address_book:
        no_proofs()
    try:
        book = read_address_book_bytes(settings.address_book, settings)
        ratio = parse_consensus_ratio(settings.consensus_ratio)
    except ConfigError as e:
        event(logger, "bootstrap address book unreadable", logging.ERROR, reason=str(e))
        raise ServerError("the bootstrap address book could not be read, retry") from e
    return ProofSettings(book, settings.first_block, ratio)


def transaction_proof(
    get_reader: Callable[[], HistoryReader],
    get_proofs: ProofConfig,
    transaction_id: str,
    *,
    nonce: int = 0,
    scheduled: bool = False,
    sidecars: bool = False,
) -> bytes:
    """The canonical bundle of one transaction; NotFoundError when no complete block holds it. A
    transaction of a native block is proven by its TSS proof and needs no bootstrap book."""
    from hedera_history.proofs.from_store import StoreProver, find_subject, native_transaction_proof  # noqa: PLC0415
    from hedera_history.proofs.transaction_ids import TransactionQuery  # noqa: PLC0415

    payer, valid_start = parse_transaction_id(transaction_id, "transaction id")
    reader = get_reader()
    subject = _built(lambda: find_subject(reader, TransactionQuery(payer, valid_start, nonce, scheduled)))
    native = _built(lambda: native_transaction_proof(reader, subject))
    if native is not None:
        return native
    config = get_proofs()
    prover = StoreProver(reader, config.bootstrap_book, first_block=config.first_block, ratio=config.ratio)
    return _built(lambda: prover.record_transaction_proof(subject, sidecars=sidecars))


def block_proof(get_reader: Callable[[], HistoryReader], get_proofs: ProofConfig, number: int) -> bytes:
    """The canonical bundle of every item of a complete block; NotFoundError otherwise."""
    from hedera_history.proofs.from_store import build_block_proof  # noqa: PLC0415

    config = get_proofs()
    return _built(
        lambda: build_block_proof(
            get_reader(),
            number,
            bootstrap_book=config.bootstrap_book,
            first_block=config.first_block,
            ratio=config.ratio,
        )
    )


def _built(build: Callable[[], _T]) -> _T:
    try:
        return build()
    except ObjectNotFoundError as e:
        raise NotFoundError(str(e)[:300]) from e
    except ProofUnsignedBlockError as e:
        raise NotServedError(str(e)[:300]) from e
    except ConfigError as e:
        raise InvalidParamsError(str(e)[:300]) from e
    except StoreError:
        raise  # unavailable (503) or unreadable (500): answered like every other route
    except HistoryError as e:
        event(logger, "proof could not be built", logging.ERROR, kind=e.kind, reason=str(e))
        raise ServerError(f"the proof could not be built from stored history ({e.kind})") from e
