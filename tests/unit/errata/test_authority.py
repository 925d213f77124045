"""Council super-majority and node ratification, with generated keys."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hedera_history.books.address_book import AddressBook, node_entry
from hedera_history.config import Settings
from hedera_history.errata.authority import (
    CouncilPolicy,
    judge_errata,
    parse_council_keys,
    require_accepted,
    super_majority,
)
from hedera_history.errata.codec import encode_errata_body, encode_errata_file, parse_errata_file
from hedera_history.errata.signing import add_council_signature, node_signature_file
from hedera_history.errors import ConfigError, CouncilApprovalError, ErrataFormatError, NodeRatificationError
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.gen.keys import council_key, ed25519_public_bytes, node_rsa_key

from tests.unit.store.builders import BASE_NS, NS

COUNCIL = [council_key(0, i) for i in range(5)]
POLICY = CouncilPolicy(tuple(ed25519_public_bytes(k) for k in COUNCIL))
NODES = [node_rsa_key(0, i) for i in range(4)]


def _book(stakes: Sequence[int] = (1, 1, 1, 1)) -> AddressBook:
    return AddressBook(tuple(node_entry(f"0.0.{3 + i}", i, NODES[i].public_key(), s) for i, s in enumerate(stakes)))


def _errata(council: Sequence[int] = (0, 1, 2, 3), *, body: bytes | None = None) -> bytes:
    data = encode_errata_file(BASE_NS + 60 * NS, body or encode_errata_body(BASE_NS, None))
    for index in council:
        data = add_council_signature(data, COUNCIL[index])
    return data


def _node_signatures(data: bytes, nodes: Sequence[int] = (0, 1, 2, 3)) -> dict[NodeIdentity, object]:
    return {
        NodeIdentity(account=f"0.0.{3 + i}"): parse_signature_file(node_signature_file(data, NODES[i]), "sig")
        for i in nodes
    }


def test_super_majority_is_strictly_more_than_two_thirds() -> None:
    assert [super_majority(n) for n in (1, 2, 3, 4, 5, 6, 7)] == [1, 2, 3, 3, 4, 5, 5]
    for n in range(1, 40):
        assert super_majority(n) * 3 > 2 * n and (super_majority(n) - 1) * 3 <= 2 * n


def test_accepted_with_super_majorities() -> None:
    data = _errata()
    verdict = judge_errata(data, "e", _node_signatures(data), _book(), POLICY)  # type: ignore[arg-type]
    assert verdict.accepted and verdict.reasons == ()
    assert require_accepted(verdict).errata_id == verdict.errata.errata_id  # type: ignore[union-attr]
    assert verdict.nodes is not None and (verdict.nodes.stake, verdict.nodes.total_stake) == (4, 4)


def test_too_few_council_signatures() -> None:
    data = _errata(council=(0, 1, 2))
    verdict = judge_errata(data, "e", _node_signatures(data), _book(), POLICY)  # type: ignore[arg-type]
    assert isinstance(verdict.error, CouncilApprovalError)
    assert "3 valid council signature(s) of 5 keys; 4 needed" in verdict.reasons[0]
    with pytest.raises(CouncilApprovalError):
        require_accepted(verdict)


def test_one_key_signing_twice_counts_once() -> None:
    data = _errata(council=(0, 1, 2))
    doubled = add_council_signature(data, COUNCIL[0])  # replaces, never duplicates
    verdict = judge_errata(doubled, "e", _node_signatures(doubled), _book(), POLICY)  # type: ignore[arg-type]
    assert verdict.council is not None and len(verdict.council.approving) == 3 and not verdict.accepted


def test_wrong_key_is_not_counted() -> None:
    data = _errata(council=(0, 1, 2))
    data = add_council_signature(data, council_key(1, 0))  # a key of another council
    verdict = judge_errata(data, "e", _node_signatures(data), _book(), POLICY)  # type: ignore[arg-type]
    assert not verdict.accepted
    assert "not a configured council key" in verdict.reasons[0]


def test_tampered_body_fails_council_and_nodes() -> None:
    genuine = parse_errata_file(_errata(), "e")
    tampered = encode_errata_file(
        genuine.consensus_ns, encode_errata_body(BASE_NS + 1, None), genuine.council_signatures
    )
    verdict = judge_errata(tampered, "e", _node_signatures(_errata()), _book(), POLICY)  # type: ignore[arg-type]
    assert isinstance(verdict.error, CouncilApprovalError)
    assert "does not verify over the body" in verdict.reasons[0]
    assert verdict.nodes is not None and verdict.nodes.stake == 0
    assert "signed another errata file" in verdict.reasons[1]


@pytest.mark.parametrize(
    ("stakes", "signers", "ratified"),
    [
        ((1, 1, 1, 1), (0, 1), False),
        ((1, 1, 1, 1), (0, 1, 2), True),
        ((1, 1, 1, 0), (0, 1), False),  # exactly 2/3 is not more than 2/3
        ((10, 1, 1, 1), (0,), True),  # stake, not count
        ((1, 1, 1, 10), (0, 1, 2), False),
    ],
)
def test_node_stake_must_exceed_two_thirds(stakes: tuple[int, ...], signers: tuple[int, ...], ratified: bool) -> None:
    data = _errata()
    verdict = judge_errata(data, "e", _node_signatures(data, signers), _book(stakes), POLICY)  # type: ignore[arg-type]
    assert verdict.accepted is ratified
    if not ratified:
        assert isinstance(verdict.error, NodeRatificationError) and verdict.reasons[0].startswith(
            "too little node stake"
        )


def test_unknown_node_and_bad_signature_are_reported() -> None:
    data = _errata()
    signatures = _node_signatures(data, (0, 1))
    signatures[NodeIdentity(account="0.0.99")] = parse_signature_file(node_signature_file(data, NODES[2]), "s")
    signatures[NodeIdentity(account="0.0.6")] = parse_signature_file(node_signature_file(data, NODES[2]), "s")
    verdict = judge_errata(data, "e", signatures, _book(), POLICY)  # type: ignore[arg-type]
    assert verdict.nodes is not None
    assert verdict.nodes.outcomes["0.0.99"].startswith("unknown node")
    assert verdict.nodes.outcomes["0.0.6"].startswith("bad signature")
    assert verdict.nodes.outcomes["0.0.5"] == "no signature file"
    assert not verdict.accepted


def test_malformed_file_is_a_format_refusal() -> None:
    verdict = judge_errata(b"\x08\x07", "e", {}, _book(), POLICY)
    assert isinstance(verdict.error, ErrataFormatError) and verdict.errata is None and verdict.reasons


def test_no_council_configured_refuses_everything() -> None:
    data = _errata()
    verdict = judge_errata(data, "e", _node_signatures(data), _book(), CouncilPolicy(()))  # type: ignore[arg-type]
    assert not verdict.accepted and "no errata council keys are configured" in verdict.reasons[0]


def test_council_keys_from_settings_text_or_file(tmp_path: Path) -> None:
    keys = [ed25519_public_bytes(k).hex() for k in COUNCIL]
    assert parse_council_keys(",".join(keys)) == POLICY.keys
    listing = tmp_path / "council.txt"
    listing.write_text("# council\n" + "\n".join(f"{k}  # member {i}" for i, k in enumerate(keys)) + "\n")
    policy = CouncilPolicy.from_settings(Settings.from_env({}, errata_council_keys=str(listing)))
    assert policy.keys == POLICY.keys and policy.required == 4
    assert CouncilPolicy(POLICY.keys, threshold=5).required == 5
    with pytest.raises(ConfigError, match="below the super-majority"):
        CouncilPolicy(POLICY.keys, threshold=3)
    with pytest.raises(ConfigError, match="listed twice"):
        CouncilPolicy((POLICY.keys[0], POLICY.keys[0]))
    with pytest.raises(ConfigError, match="cannot read"):
        parse_council_keys(str(tmp_path / "missing"))
