"""What a Terraform plan changes, from the JSON of ``terraform show -json <plan>``."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hedera_history.errors import TerraformError


class Action(enum.StrEnum):
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    REPLACE = "replace"
    """Destroyed and created again (either order)."""
    READ = "read"
    NO_OP = "no-op"


_ACTIONS: dict[tuple[str, ...], Action] = {
    ("create",): Action.CREATE,
    ("update",): Action.UPDATE,
    ("delete",): Action.DELETE,
    ("delete", "create"): Action.REPLACE,
    ("create", "delete"): Action.REPLACE,
    ("read",): Action.READ,
    ("no-op",): Action.NO_OP,
}


@dataclass(frozen=True, slots=True)
class ResourceChange:
    address: str
    """e.g. ``google_bigtable_table.table["blocks"]``."""
    action: Action


@dataclass(frozen=True, slots=True)
class PlanSummary:
    changes: tuple[ResourceChange, ...]
    """Every resource the plan touches (no-ops and reads left out), by address."""

    @property
    def adds(self) -> int:
        """Counted as Terraform counts them: a replacement is one add and one destroy."""
        return sum(change.action in (Action.CREATE, Action.REPLACE) for change in self.changes)

    @property
    def updates(self) -> int:
        return sum(change.action is Action.UPDATE for change in self.changes)

    @property
    def destroys(self) -> int:
        return sum(change.action in (Action.DELETE, Action.REPLACE) for change in self.changes)

    @property
    def empty(self) -> bool:
        return not self.changes

    def line(self) -> str:
        """Terraform's own summary line."""
        return f"Plan: {self.adds} to add, {self.updates} to change, {self.destroys} to destroy."

    def as_data(self) -> dict[str, Any]:
        return {
            "add": self.adds,
            "change": self.updates,
            "destroy": self.destroys,
            "resources": [{"address": c.address, "action": str(c.action)} for c in self.changes],
        }


def summarize_plan(plan: Mapping[str, Any]) -> PlanSummary:
    """The changes of a plan in ``show -json`` form; an unknown action list is an error."""
    if "format_version" not in plan:
        raise TerraformError("not the JSON of a Terraform plan (no format_version)")
    changes = []
    for entry in plan.get("resource_changes") or ():
        actions = tuple(entry.get("change", {}).get("actions", ()))
        action = _ACTIONS.get(actions)
        if action is None:
            raise TerraformError(f"unknown plan actions {list(actions)} for {entry.get('address')}")
        if action not in (Action.NO_OP, Action.READ):
            changes.append(ResourceChange(str(entry["address"]), action))
    return PlanSummary(tuple(sorted(changes, key=lambda change: change.address)))
