"""The errata scenario's ground truth hangs together."""

from __future__ import annotations

from hedera_history.errata.codec import parse_errata_file
from hedera_history.gen.config_and_output import GeneratorConfig
from hedera_history.gen.errata import generate_errata_scenario

CONFIG = GeneratorConfig(nodes=4, periods=5, transactions=12, seed=5, rotate_key=False)


def test_scenario_is_deterministic_and_consistent() -> None:
    first, second = generate_errata_scenario(CONFIG), generate_errata_scenario(CONFIG)
    assert [e.data for e in first.errata] == [e.data for e in second.errata]
    assert [e.role for e in first.errata] == ["missing-wrong", "missing", "inconsistent"]
    stream_times = {t["consensus_ns"] for t in first.stream.truth["transactions"]}
    corrected_times = {t["consensus_ns"] for t in first.corrected["transactions"]}
    assert first.missing["consensus_ns"] not in stream_times and first.missing["consensus_ns"] in corrected_times
    assert (
        first.inconsistent["consensus_ns"] in stream_times and first.inconsistent["consensus_ns"] not in corrected_times
    )
    # Errata are issued in order, each after its error.
    times = [e.consensus_ns for e in first.errata]
    assert times == sorted(times) and all(e.consensus_ns > e.time_of_error for e in first.errata)
    for errata in first.errata:
        parsed = parse_errata_file(errata.data, errata.role)
        assert parsed.errata_id == errata.errata_id and len(parsed.council_signatures) == 4
        assert len(errata.node_signatures) == CONFIG.nodes


def test_balances_meet_the_network_state_after_the_last_errata() -> None:
    scenario = generate_errata_scenario(CONFIG)
    balances = scenario.corrected["balances"]
    last_errata = max(e.consensus_ns for e in scenario.errata)
    for block in scenario.stream.truth["blocks"]:
        if block["consensus_end_ns"] < last_errata:
            continue
        node_state = balances["node_state_by_block"][str(block["number"])]
        expected = balances["by_block"][str(block["number"])]
        assert all(expected[a] == node_state[a] for a in node_state if a in expected)
    # Before the errata the stream's own view differs (the missing transfer is not there yet).
    missing_block = str(scenario.missing["block_number"])
    assert balances["by_block"][missing_block] != balances["node_state_by_block"][missing_block]
