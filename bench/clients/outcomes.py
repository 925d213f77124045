"""Each client call's outcome, judged against the routes we serve (``api/reference_routes.py``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from hedera_history.api.reference_routes import SERVED, not_served_method_reason, not_served_reason

Verdict = Literal["pass", "FAIL", "not-served", "skipped"]
CLIENT_SIDE = "(derived)"
"""A check of the client's own configuration (the URL it derives): must pass like a served route."""


@dataclass(frozen=True)
class Outcome:
    history: str
    client: str
    call: str
    method: str
    route: str
    ok: bool | None
    detail: str

    @property
    def served(self) -> bool:
        return self.route == CLIENT_SIDE or (self.method == "GET" and self.route in SERVED)

    @property
    def verdict(self) -> Verdict:
        if self.ok is None:
            return "skipped"
        if not self.served:
            return "not-served"
        return "pass" if self.ok else "FAIL"

    @property
    def why_not_served(self) -> str:
        if self.served:
            return ""
        if self.method != "GET" and self.route in SERVED:
            return not_served_method_reason(self.method, self.route) or f"{self.method} not served"
        return not_served_reason(self.route) or "not a route of the reference"


def parse(history: str, client: str, output: str) -> list[Outcome]:
    """The JSON lines a call script printed; any other line is a failure of the script itself."""
    outcomes = []
    for line in output.splitlines():
        try:
            fields = json.loads(line)
        except json.JSONDecodeError:
            fields = None
        if not isinstance(fields, dict):
            continue
        outcomes.append(
            Outcome(
                history,
                client,
                str(fields["call"]),
                str(fields["method"]),
                str(fields["route"]),
                fields["ok"],
                str(fields["detail"]),
            )
        )
    return outcomes


def failed(outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.verdict == "FAIL"]


def table(outcomes: list[Outcome]) -> str:
    """A Markdown table, one row per call and history."""
    rows = ["| history | client | call | route | result | detail |", "| --- | --- | --- | --- | --- | --- |"]
    for o in outcomes:
        detail = o.detail if o.verdict != "not-served" else f"{o.why_not_served}; {'answered' if o.ok else o.detail}"
        route = o.route if o.method == "GET" else f"{o.method} {o.route}"
        cells = [o.history, o.client, f"`{o.call}`", f"`{route}`", o.verdict, detail.replace("|", "/")[:160]]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def summary(outcomes: list[Outcome]) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.verdict] = counts.get(o.verdict, 0) + 1
    return ", ".join(f"{counts.get(v, 0)} {v}" for v in ("pass", "FAIL", "not-served", "skipped"))
