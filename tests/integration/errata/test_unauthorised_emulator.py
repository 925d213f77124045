"""Unauthorised errata change no cell on the emulator, and say why they were refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.errata.codec import encode_errata_body, encode_errata_file, parse_errata_file
from hedera_history.errata.ingest import ErrataStatus, process_errata_object
from hedera_history.errata.signing import add_council_signature, node_signature_file
from hedera_history.gen.errata import build_errata, errata_objects
from hedera_history.gen.keys import council_key
from hedera_history.sources.local import LocalSource
from hedera_history.store import schema as s

from tests.integration.store.conftest import Store

from .conftest import WrittenScenario

ALL_TABLES = (*s.HISTORY_TABLES, s.ERRATA_LOG, s.BALANCES)


def _forged(written: WrittenScenario, case: str) -> tuple[bytes, dict[str, bytes]]:
    """A removal of the phantom record, refused for the reason ``case`` names."""
    scenario = written.scenario
    stream = scenario.stream
    genuine = next(e for e in scenario.errata if e.role == "inconsistent")
    kwargs = {"consensus_ns": genuine.consensus_ns, "time_of_error": genuine.time_of_error, "correct_item": None}
    if case == "too_few_council_signatures":
        return build_errata(stream, council_signers=[0, 1], **kwargs)  # type: ignore[arg-type]
    if case == "too_little_stake":
        return build_errata(stream, node_signers=[0, 1], **kwargs)  # type: ignore[arg-type]
    if case == "wrong_key":
        data, _ = build_errata(stream, council_signers=[], **kwargs)  # type: ignore[arg-type]
        for index in range(5):
            data = add_council_signature(data, council_key(99, index))
    elif case == "tampered_body":
        data, _ = build_errata(stream, **kwargs)  # type: ignore[arg-type]
        errata = parse_errata_file(data, "genuine")
        # Same council signatures, another time of error: the body is not what the council signed.
        body = encode_errata_body(errata.time_of_error - 1, None)
        data = encode_errata_file(errata.consensus_ns, body, errata.council_signatures)
    else:
        raise AssertionError(case)
    block = stream.config.start_block + stream.config.periods - 1
    signatures = {n.account: node_signature_file(data, stream.signing_key(n.node_id, block)) for n in stream.nodes}
    return data, signatures


@pytest.mark.parametrize(
    ("case", "status", "reason"),
    [
        ("wrong_key", ErrataStatus.REJECTED, "not a configured council key"),
        ("too_few_council_signatures", ErrataStatus.REJECTED, "too few council signatures"),
        ("too_little_stake", ErrataStatus.PENDING, "too little node stake"),
        ("tampered_body", ErrataStatus.REJECTED, "does not verify over the body"),
    ],
)
def test_unauthorised_errata_change_no_cell(
    errata_store: Store, written_scenario: WrittenScenario, tmp_path: Path, case: str, status: ErrataStatus, reason: str
) -> None:
    store = errata_store
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    data, signatures = _forged(written_scenario, case)
    objects = errata_objects(
        written_scenario.scenario.stream, parse_errata_file(data, case).consensus_ns, data, signatures
    )
    for path, content in objects.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(content)
    errata_path = next(p for p in objects if p.endswith(".errata"))
    book = parse_address_book(written_scenario.scenario.stream.address_books[-1].book)
    before = store.snapshot(ALL_TABLES)

    outcome = process_errata_object(LocalSource(str(tmp_path)), errata_path, store.settings, store.gateway, book)

    assert outcome.status is status
    assert any(reason in r for r in outcome.reasons), outcome.reasons
    assert outcome.cells_written == 0
    assert store.snapshot(ALL_TABLES) == before
