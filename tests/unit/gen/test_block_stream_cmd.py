"""``generate --block-stream`` and ``--cutover-after`` on disk and live: the files, the summary,
``verify`` accepting them end to end, and the flags that do not go together."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.errors import ConfigError
from hedera_history.gen import GeneratorConfig, generate_into, generate_stream, write_stream
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE
from hedera_history.gen.live import LiveConfig, PeriodWritten

from tests.unit.gen.test_live import START_NS, _play


def _generate(out: Path, *flags: str) -> str:
    result = CliRunner().invoke(cli, ["generate", str(out), "--transactions", "12", *flags], env={})
    assert result.exit_code == 0, result.output
    return result.stdout


def _verify(out: Path, *flags: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["verify", str(out), "--address-book", str(out / "address-book.bin"), "--json", *flags], env={}
    )
    lines = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert (result.exit_code == 0) == all(line["ok"] for line in lines), result.output
    return lines


def test_a_cutover_stream_verifies_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = _generate(out, "--periods", "7", "--cutover-after", "2")
    assert "blocks 0-6 (2 record files, 3 wrapped and 2 native blocks) from 4 nodes" in summary
    shown = _verify(out, "--ledger-publication", str(out / LEDGER_PUBLICATION_FILE))
    assert all(line["ok"] for line in shown)
    assert [line.get("block_number", line.get("number")) for line in shown] == list(range(7))
    assert [line["signature"]["scheme"] for line in shown[2:]] == ["rsa"] * 3 + ["tss"] * 2
    truth = json.loads((out / "ground-truth.json").read_text())
    assert [block["file"] for block in truth["blocks"][2:]] == [
        f"demo/block/0000/0000/0000/0000/{n:03d}.blk.zstd" for n in range(2, 7)
    ]
    assert all((out / block["file"]).is_file() for block in truth["blocks"][2:])


def test_the_shared_cutover_stream_verifies_from_its_folder(generated_cutover_stream_dir: Path) -> None:
    shown = _verify(
        generated_cutover_stream_dir,
        "--ledger-publication",
        str(generated_cutover_stream_dir / LEDGER_PUBLICATION_FILE),
    )
    assert len(shown) == 8 and all(line["ok"] for line in shown)


def test_without_the_ledger_a_native_block_is_never_counted_verified(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _generate(out, "--periods", "4", "--cutover-after", "2", "--wrapped-blocks", "0")
    shown = _verify(out)
    assert [line["ok"] for line in shown] == [True, True, False, False]
    assert {line["error_kind"] for line in shown[2:]} == {"tss_unverifiable_proof"}


def test_a_block_stream_with_state_proofs_in_flat_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = _generate(out, "--periods", "4", "--block-stream", "--sign-every", "2", "--flat-blocks", "--seed", "3")
    assert "blocks 0-3 (0 record files, 0 wrapped and 4 native blocks)" in summary
    files = sorted(path.name for path in (out / "demo" / "block").iterdir())
    assert files == [f"{n:019d}.blk.zstd" for n in range(4)]
    shown = _verify(out, "--ledger-publication", str(out / LEDGER_PUBLICATION_FILE))
    assert [line["proof"] for line in shown] == ["block_state_proof", "signed_block_proof"] * 2
    assert all(line["ok"] for line in shown)


@pytest.mark.parametrize(
    "flags",
    [
        ("--block-stream", "--cutover-after", "2"),
        ("--wrapped-blocks", "2"),
        ("--cutover-after", "8"),
        ("--live", "--block-stream", "--sign-every", "2"),
    ],
)
def test_flags_that_do_not_go_together(tmp_path: Path, flags: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, ["generate", str(tmp_path / "out"), "--periods", "10", *flags], env={})
    assert result.exit_code != 0 and isinstance(result.exception, ConfigError), result.output


def test_generate_into_writes_what_write_stream_writes(tmp_path: Path) -> None:
    config = GeneratorConfig(nodes=3, periods=5, transactions=10, cutover_after=1, wrapped_periods=1, sign_every=2)
    write_stream(generate_stream(config), tmp_path / "whole")
    generate_into(config, tmp_path / "streamed")
    whole = {p.relative_to(tmp_path / "whole"): p.read_bytes() for p in (tmp_path / "whole").rglob("*") if p.is_file()}
    streamed = {
        p.relative_to(tmp_path / "streamed"): p.read_bytes() for p in (tmp_path / "streamed").rglob("*") if p.is_file()
    }
    assert whole == streamed
    assert Path(LEDGER_PUBLICATION_FILE) in whole


def test_a_live_network_cuts_over(tmp_path: Path) -> None:
    """Record files, then a wrapped block, then native blocks, each block file landing once its
    period closes, after the block delay; the sink holds exactly the stream's objects."""
    config = LiveConfig(nodes=4, periods=4, transactions=10, seed=2, cutover_after=1, wrapped_periods=1)
    lines: list[PeriodWritten] = []
    summary, sink = _play(config, tmp_path, on_period=lines.append)
    assert summary.stream is not None and sink.objects == dict(summary.stream.objects)
    assert (summary.first_block, summary.last_block, summary.periods) == (0, 3, 4)
    assert [(line.kind, line.proof, line.files, line.signatures) for line in lines] == [
        ("record", None, 12, 4),
        ("wrapped", "signed_record_file_proof", 1, 0),
        ("native", "signed_block_proof", 1, 0),
        ("native", "signed_block_proof", 1, 0),
    ]
    landed = {name: ns for ns, name in sink.log}
    for block in summary.stream.blocks:
        delay = (landed[block.path] - START_NS) / 1e9 - (block.index + 1) * config.period_seconds
        assert delay == pytest.approx(summary.stream.truth["live"]["block_delay"], abs=1e-6)
    assert (tmp_path / LEDGER_PUBLICATION_FILE).read_bytes() == summary.stream.ledger_publication
    truth = json.loads((tmp_path / "ground-truth.json").read_text())
    assert [b["kind"] for b in truth["blocks"]] == ["record", "wrapped", "native", "native"]
    assert truth["blocks"][1]["signers"] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]
