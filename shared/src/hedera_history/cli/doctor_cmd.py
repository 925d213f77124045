"""``hedera-history doctor``: check that this machine can run the local stack and its tests."""

from __future__ import annotations

import click

from hedera_history.errors import PrerequisiteError
from hedera_history.localstack.prerequisites import Check, problems, run_checks


def format_check(check: Check) -> list[str]:
    """One line for the check, and one more with the fix when it failed."""
    if check.ok:
        status = "ok"
    elif check.required:
        status = "missing"
    else:
        status = "optional"
    lines = [f"[{status:>8}] {check.name}: {check.found}"]
    if not check.ok and check.fix:
        lines.append(f"{'':11}fix: {check.fix}")
    return lines


@click.command("doctor")
def doctor() -> None:
    """Check Python, Java, the Cloud CLI and its emulators; exit 1 if anything required is missing."""
    checks = run_checks()
    for check in checks:
        for line in format_check(check):
            click.echo(line)
    failed = problems(checks)
    if failed:
        # A HistoryError is what the entry point turns into exit status 1.
        raise PrerequisiteError(f"{len(failed)} required prerequisite(s) missing; run the fixes above")
    click.echo("\nEverything the local stack needs is installed.")
