"""``hedera-history errata create / sign / verify`` on files (no Bigtable)."""

from __future__ import annotations

import base64
from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.errata.codec import parse_errata_file
from hedera_history.gen.config_and_output import GeneratorConfig
from hedera_history.gen.errata import generate_errata_scenario
from hedera_history.gen.writer import write_stream

CONFIG = GeneratorConfig(nodes=4, periods=4, transactions=12, seed=6, rotate_key=False)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_create_sign_verify(tmp_path: Path) -> None:
    scenario = generate_errata_scenario(CONFIG, supersede=False)
    root = tmp_path / "bucket"
    write_stream(scenario.stream, root)
    phantom = scenario.inconsistent
    genuine = next(e for e in scenario.errata if e.role == "inconsistent")
    transfers = ", ".join(
        f'{{ account = "{m["account"]}", amount = {-m["amount"]} }}' for m in phantom["hbar_transfers"]
    )
    description = tmp_path / "remove.toml"
    description.write_text(
        f"consensus_time = {genuine.consensus_ns}\n"
        f'consensus_time_of_error = "{phantom["consensus_ns"] // 10**9}.{phantom["consensus_ns"] % 10**9:09d}"\n'
        f'[[compensating_items]]\nmemo = "undo the phantom"\ntransfers = [{transfers}]\n'
    )
    where = root / genuine.path
    where.parent.mkdir(parents=True)
    code, output = _run("errata", "create", str(description), "-o", str(where))
    assert code == 0, output
    created = parse_errata_file(where.read_bytes(), "x")
    assert created.body.correct_item is None and created.time_of_error == phantom["consensus_ns"]

    keys = root / "keys"
    for index in range(3):
        assert _run("errata", "sign", str(where), "--council-key", str(keys / f"council-{index}.pem"))[0] == 0
    council = ",".join(scenario.council_keys)
    book = root / "address-book.bin"
    for node in scenario.stream.nodes:
        signature = root / f"recordstreams/record{node.account}/errata/{where.name}_sig"
        signature.parent.mkdir(parents=True, exist_ok=True)
        assert (
            _run(
                "errata", "sign", str(where), "--node-key", str(keys / f"node-{node.account}.pem"), "-o", str(signature)
            )[0]
            == 0
        )

    # Three council signatures of five: refused, and says why.
    code, output = _run("errata", "verify", str(where), "--address-book", str(book), "--council-keys", council)
    assert code == 1 and "too few council signatures" in output
    # A fourth council signature changes the file: the nodes must sign again.
    assert _run("errata", "sign", str(where), "--council-key", str(keys / "council-3.pem"))[0] == 0
    code, output = _run("errata", "verify", str(where), "--address-book", str(book), "--council-keys", council)
    assert code == 1 and "signed another errata file" in output
    for node in scenario.stream.nodes:
        signature = root / f"recordstreams/record{node.account}/errata/{where.name}_sig"
        _run("errata", "sign", str(where), "--node-key", str(keys / f"node-{node.account}.pem"), "-o", str(signature))
    code, output = _run("errata", "verify", str(where), "--address-book", str(book), "--council-keys", council)
    assert code == 0 and "accepted" in output
    # Explicit signature files work too.
    first = scenario.stream.nodes[0]
    only_one = f"{first.account}={root}/recordstreams/record{first.account}/errata/{where.name}_sig"
    code, output = _run(
        "errata", "verify", str(where), "--address-book", str(book), "--council-keys", council, "--signature", only_one
    )
    assert code == 1 and "too little node stake" in output


def test_create_with_a_correct_item_from_base64(tmp_path: Path) -> None:
    scenario = generate_errata_scenario(CONFIG, supersede=False)
    fix = next(e for e in scenario.errata if e.role == "missing")
    item = parse_errata_file(fix.data, "fix").body.correct_item
    assert item is not None
    description = tmp_path / "insert.toml"
    description.write_text(
        f'consensus_time = "{fix.consensus_ns // 10**9}.{fix.consensus_ns % 10**9:09d}"\n'
        f"consensus_time_of_error = {fix.time_of_error}\n"
        "[correct_item]\n"
        f'transaction = "{base64.b64encode(item.transaction_bytes).decode()}"\n'
        f'record = "{base64.b64encode(item.record_bytes).decode()}"\n'
    )
    out = tmp_path / "insert.errata"
    code, output = _run("errata", "create", str(description), "-o", str(out))
    assert code == 0, output
    assert parse_errata_file(out.read_bytes(), "x").body.correct_item == item
    description.write_text("consensus_time = 5\nconsensus_time_of_error = 4\nsurprise = 1\n")
    code, output = CliRunner().invoke(cli, ["errata", "create", str(description)]).exit_code, ""
    assert code != 0
