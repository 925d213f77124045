"""Check every google resource, data source and provider block in ``infra/`` against the pinned
provider schema, without Terraform and without the network.

Checked: the type exists; each argument exists and is not computed-only; nested blocks exist where
they are written (``dynamic`` blocks included: their ``content`` against the block they make);
required arguments and blocks are there; a single-item block is not repeated; literal values have a
type Terraform can convert to the argument's (a string literal where a list is required fails, a
string ``"5"`` where a number is required passes, as it does in Terraform). Expressions are not
evaluated. The snapshot's provider version must satisfy the pin in ``versions.tf``. A module's
``locals`` have one name each across its files (Terraform refuses a second).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hedera_history.deploy import provider_schema
from hedera_history.deploy.hcl_tree import Attribute, Block, Value, parse_file
from hedera_history.deploy.provider_schema import BlockSchema, ProviderSchema
from hedera_history.errors import DuplicateLocalError

PROVIDER_NAME = "google"
_RESOURCE_META_ARGUMENTS = frozenset({"count", "for_each", "depends_on", "provider"})
_RESOURCE_META_BLOCKS = frozenset({"lifecycle", "provisioner", "connection"})
_PROVIDER_META_ARGUMENTS = frozenset({"alias", "version"})
_DYNAMIC_ARGUMENTS = frozenset({"for_each", "iterator", "labels"})
_LIFECYCLE_ARGUMENTS = frozenset({"create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by"})
_LIFECYCLE_BLOCKS = frozenset({"precondition", "postcondition"})
# What Terraform converts a string to a bool from.
_BOOL_STRINGS = frozenset({"true", "false", "1", "0"})
_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_KIND_NAMES = {"tuple": "a list", "object": "an object", "string": "a string", "number": "a number", "bool": "a bool"}


@dataclass(frozen=True, slots=True)
class Finding:
    file: str
    line: int | None
    address: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.address}: {self.message}"


@dataclass(frozen=True, slots=True)
class Report:
    findings: tuple[Finding, ...]
    resources: int
    data_sources: int
    provider_version: str
    package: str


def validate_directory(infra: Path, schema: ProviderSchema | None = None, *, root: Path | None = None) -> Report:
    """Every ``*.tf`` of ``infra`` and of ``infra/modules/*``; file names are shown relative to ``root``."""
    schema = schema or provider_schema.load()
    shown_from = root or infra.parent
    findings: list[Finding] = []
    counts = {"resource": 0, "data": 0}
    paths = sorted(infra.glob("*.tf")) + sorted(infra.glob("modules/*/*.tf"))
    locals_seen: dict[tuple[Path, str], str] = {}
    for path in paths:
        shown = str(path.relative_to(shown_from)) if path.is_relative_to(shown_from) else str(path)
        tree = parse_file(path)
        _check_unique_locals(path.parent, shown, tree, locals_seen)
        checker = _FileChecker(shown, schema)
        checker.check(tree)
        findings.extend(sorted(checker.findings, key=lambda finding: finding.line or 0))
        for kind in counts:
            counts[kind] += checker.counts[kind]
        if path.name == "versions.tf":
            findings.extend(_pin_findings(shown, tree, schema))
    package = f"{schema.source['package']} {schema.source['version']}"
    return Report(tuple(findings), counts["resource"], counts["data"], schema.provider_version, package)


def _check_unique_locals(module: Path, shown: str, tree: Block, seen: dict[tuple[Path, str], str]) -> None:
    """Record the file's locals in ``seen`` (by module folder and name: where each is defined);
    :class:`DuplicateLocalError` when a name of its module is defined a second time."""
    for block in tree.blocks:
        if block.type != "locals":
            continue
        for attribute in block.attributes:
            place = f"{shown}:{attribute.line}" if attribute.line is not None else shown
            first = seen.get((module, attribute.name))
            if first is not None:
                raise DuplicateLocalError(attribute.name, first, place)
            seen[(module, attribute.name)] = place


class _FileChecker:
    def __init__(self, file: str, schema: ProviderSchema) -> None:
        self.file = file
        self.schema = schema
        self.findings: list[Finding] = []
        self.counts = {"resource": 0, "data": 0}

    def check(self, tree: Block) -> None:
        for block in tree.blocks:
            if block.type in ("resource", "data") and len(block.labels) == 2:
                self._check_top(block)
            elif block.type == "provider" and block.labels == (PROVIDER_NAME,):
                self._check_body(block, self.schema.provider, "provider.google", (), _PROVIDER_META_ARGUMENTS)

    def _check_top(self, block: Block) -> None:
        type_name, name = block.labels
        if not type_name.startswith(f"{PROVIDER_NAME}_") or _other_provider(block):
            return
        data = block.type == "data"
        self.counts[block.type] += 1
        address = f"data.{type_name}.{name}" if data else f"{type_name}.{name}"
        known = self.schema.data_sources if data else self.schema.resources
        schema = known.get(type_name)
        if schema is None:
            kind = "data source" if data else "resource type"
            self._report(block.line, address, f"unknown {kind} {type_name}{_suggest(type_name, known)}")
            return
        self._check_body(block, schema, address, (), _RESOURCE_META_ARGUMENTS, top=schema)

    def _check_body(
        self,
        block: Block,
        schema: BlockSchema,
        address: str,
        path: tuple[str, ...],
        meta_arguments: frozenset[str] = frozenset(),
        *,
        top: BlockSchema | None = None,
    ) -> None:
        where = " in " + ".".join(path) if path else ""
        for attribute in block.attributes:
            if attribute.name not in meta_arguments:
                self._check_attribute(attribute, schema, address, where)
        present: set[str] = {attribute.name for attribute in block.attributes}
        counts: dict[str, int] = {}
        for child in block.blocks:
            if top is not None and not path and child.type in _RESOURCE_META_BLOCKS:
                if child.type == "lifecycle":
                    self._check_lifecycle(child, address)
                continue
            if child.type == "dynamic":
                self._check_dynamic(child, schema, address, path, top)
                present.update(child.labels[:1])
                continue
            nested = schema.blocks.get(child.type)
            if nested is None:
                self._report(child.line, address, self._unknown_block(child.type, schema, path, top, where))
                continue
            present.add(child.type)
            counts[child.type] = counts.get(child.type, 0) + 1
            if nested.max_one and counts[child.type] == 2:
                self._report(child.line, address, f"at most one {child.type} block{where}")
            self._check_body(child, nested.block, address, (*path, child.type), top=top)
        for name, attribute_schema in schema.attributes.items():
            if attribute_schema.required and name not in present:
                self._report(block.line, address, f"missing required argument {name}{where}")
        for name, nested in schema.blocks.items():
            if nested.required and name not in present:
                self._report(block.line, address, f"missing required block {name}{where}")

    def _check_attribute(self, attribute: Attribute, schema: BlockSchema, address: str, where: str) -> None:
        name = attribute.name
        expected = schema.attributes.get(name)
        if expected is not None:
            problem = _type_problem(attribute.value, expected.type)
            if problem is not None:
                self._report(attribute.line, address, f"{name}{where}: {problem}")
        elif name in schema.blocks:
            self._report(attribute.line, address, f"{name}{where} is a block, not an argument: write {name} {{ ... }}")
        elif name in schema.computed_only:
            self._report(attribute.line, address, f"{name}{where} is computed by the provider and cannot be set")
        else:
            names = [*schema.attributes, *schema.blocks]
            self._report(attribute.line, address, f"unknown argument {name}{where}{_suggest(name, names)}")

    def _check_dynamic(
        self, block: Block, schema: BlockSchema, address: str, path: tuple[str, ...], top: BlockSchema | None
    ) -> None:
        where = " in " + ".".join(path) if path else ""
        if len(block.labels) != 1:
            self._report(block.line, address, f"a dynamic block takes one label, the block it makes{where}")
            return
        name = block.labels[0]
        nested = schema.blocks.get(name)
        if nested is None:
            self._report(block.line, address, "dynamic " + self._unknown_block(name, schema, path, top, where))
            return
        for attribute in block.attributes:
            if attribute.name not in _DYNAMIC_ARGUMENTS:
                self._report(attribute.line, address, f"dynamic {name}{where}: unexpected argument {attribute.name}")
        if block.attribute("for_each") is None:
            self._report(block.line, address, f"dynamic {name}{where}: missing for_each")
        contents = [child for child in block.blocks if child.type == "content"]
        for child in block.blocks:
            if child.type != "content":
                self._report(child.line, address, f"dynamic {name}{where}: unexpected block {child.type}")
        if len(contents) != 1:
            self._report(block.line, address, f"dynamic {name}{where}: one content block is required")
        for content in contents:
            self._check_body(content, nested.block, address, (*path, name), top=top)

    def _check_lifecycle(self, block: Block, address: str) -> None:
        for attribute in block.attributes:
            if attribute.name not in _LIFECYCLE_ARGUMENTS:
                names = sorted(_LIFECYCLE_ARGUMENTS)
                self._report(
                    attribute.line,
                    address,
                    f"unknown lifecycle argument {attribute.name}{_suggest(attribute.name, names)}",
                )
        for child in block.blocks:
            if child.type not in _LIFECYCLE_BLOCKS:
                self._report(child.line, address, f"unknown lifecycle block {child.type}")

    def _unknown_block(
        self, name: str, schema: BlockSchema, path: tuple[str, ...], top: BlockSchema | None, where: str
    ) -> str:
        if name in schema.attributes:
            return f"{name}{where} is an argument, not a block: write {name} = ..."
        elsewhere = [other for other in (top.block_paths(name) if top is not None else []) if other != path]
        if elsewhere:
            places = ", ".join(".".join(other) if other else "the resource itself" for other in elsewhere)
            return f"block {name} is not expected{where or ' at the top'}; it belongs in {places}"
        return f"unknown block {name}{where}{_suggest(name, [*schema.blocks, *schema.attributes])}"

    def _report(self, line: int | None, address: str, message: str) -> None:
        self.findings.append(Finding(self.file, line, address, message))


def _other_provider(block: Block) -> bool:
    """A google resource bound to another provider (``google-beta``) is not this schema's to judge."""
    provider = block.attribute("provider")
    text = provider.value.text if provider is not None else None
    return text is not None and not re.match(r"^(\$\{)?google(\.\w+)?\}?$", text)


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def _type_problem(value: Value, expected: str) -> str | None:
    """Why Terraform could not convert ``value`` to ``expected``, when a literal makes that certain."""
    if value.kind in ("expression", "null") or expected == "any":
        return None
    scalar = _SCALAR_PROBLEMS.get(expected)
    if scalar is not None:
        return scalar(value)
    return _collection_problem(value, expected)


def _string_problem(value: Value) -> str | None:
    return f"a string is required, got {_KIND_NAMES[value.kind]}" if value.kind in ("tuple", "object") else None


def _number_problem(value: Value) -> str | None:
    if value.kind == "string" and value.text is not None and not _NUMBER.match(value.text):
        return f'a number is required, got the string "{value.text}"'
    if value.kind in ("bool", "tuple", "object"):
        return f"a number is required, got {_KIND_NAMES[value.kind]}"
    return None


def _bool_problem(value: Value) -> str | None:
    if value.kind == "string" and value.text is not None and value.text not in _BOOL_STRINGS:
        return f'a bool is required, got the string "{value.text}"'
    if value.kind in ("number", "tuple", "object"):
        return f"a bool is required, got {_KIND_NAMES[value.kind]}"
    return None


_SCALAR_PROBLEMS: dict[str, Callable[[Value], str | None]] = {
    "string": _string_problem,
    "number": _number_problem,
    "bool": _bool_problem,
}


def _collection_problem(value: Value, expected: str) -> str | None:
    got = _KIND_NAMES[value.kind]
    collection, _, element = expected.partition("(")
    if collection in ("list", "set"):
        if value.kind != "tuple":
            return f"{collection}({element} is required, got {got}"
        return _first(_type_problem(item, element.rstrip(")")) for item in value.items)
    if collection == "map" or expected == "object":
        return f"{expected} is required, got {got}" if value.kind != "object" else None
    return None


def _first(problems: Iterable[str | None]) -> str | None:
    return next((f"an element: {problem}" for problem in problems if problem is not None), None)


def _pin_findings(file: str, tree: Block, schema: ProviderSchema) -> list[Finding]:
    """The snapshot must be of a provider version that ``required_providers`` admits."""
    for terraform in (block for block in tree.blocks if block.type == "terraform"):
        for required in (block for block in terraform.blocks if block.type == "required_providers"):
            google = required.attribute(PROVIDER_NAME)
            if google is None:
                continue
            constraint = _constraint_text(google)
            if constraint is None:
                return [
                    Finding(file, google.line, "terraform", "the google provider has no literal version constraint")
                ]
            if not satisfies(schema.provider_version, constraint):
                return [
                    Finding(
                        file,
                        google.line,
                        "terraform",
                        f"the pin {constraint!r} does not admit the schema snapshot's google "
                        f"{schema.provider_version}; make a new one (hedera-history deploy schema-snapshot)",
                    )
                ]
    return []


def _constraint_text(attribute: Attribute) -> str | None:
    version = attribute.value.entry("version")
    return version.text if version is not None and version.kind == "string" else None


def satisfies(version: str, constraint: str) -> bool:
    """Terraform's version constraint syntax: ``~> 6.50``, ``>= 6, < 7``, ``= 6.50.0``."""
    have = _numbers(version)
    for part in (piece.strip() for piece in constraint.split(",") if piece.strip()):
        match = re.match(r"^(~>|>=|<=|!=|>|<|=)?\s*([\d.]+)$", part)
        if match is None:
            return False
        operator, wanted = match.group(1) or "=", match.group(2)
        written = tuple(int(piece) for piece in wanted.split(".") if piece)
        padded = _numbers(wanted)
        if operator == "~>":
            # As go-version reads it: every written segment but the last is fixed.
            prefix = written[:-1]
            if have < padded or have[: len(prefix)] != prefix:
                return False
        elif not _compare(have, operator, padded):
            return False
    return True


def _compare(have: tuple[int, ...], operator: str, want: tuple[int, ...]) -> bool:
    return {
        ">=": have >= want,
        "<=": have <= want,
        ">": have > want,
        "<": have < want,
        "=": have == want,
        "!=": have != want,
    }[operator]


def _numbers(version: str) -> tuple[int, ...]:
    parts = tuple(int(piece) for piece in version.split(".") if piece.isdigit())
    return parts + (0,) * (3 - len(parts)) if len(parts) < 3 else parts


def format_report(report: Report) -> Sequence[str]:
    lines = [str(finding) for finding in report.findings]
    lines.append(
        f"{report.resources} resource(s) and {report.data_sources} data source(s) checked against google "
        f"{report.provider_version} ({report.package}): {len(report.findings)} error(s)"
    )
    return lines
