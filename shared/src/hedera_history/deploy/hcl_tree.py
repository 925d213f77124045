"""Terraform files as blocks and attributes with their line numbers and, where an attribute's value
is a literal, what kind of value it is (python-hcl2's parse tree; its dict output has no lines)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hcl2
from hcl2.rules.base import AttributeRule, BlockRule, BodyRule
from hcl2.rules.containers import ObjectRule, TupleRule
from hcl2.rules.expressions import ExprTermRule
from hcl2.rules.literal_rules import FloatLitRule, IntLitRule, LiteralValueRule
from hcl2.rules.strings import HeredocTemplateRule, StringRule
from lark.exceptions import LarkError

from hedera_history.errors import InfraInvalidError

_TEXT = hcl2.SerializationOptions(strip_string_quotes=True, with_comments=False)


@dataclass(frozen=True, slots=True)
class Value:
    """What an attribute's expression is, as far as it can be known without evaluating it."""

    kind: str
    """``string``, ``number``, ``bool``, ``null``, ``tuple``, ``object``, or ``expression``
    (anything else: references, calls, conditionals, templates' results are still ``string``)."""
    text: str | None = None
    """A string without interpolation or a number, as written; an expression's source text."""
    items: tuple[Value, ...] = ()
    """A tuple's elements."""
    entries: tuple[tuple[str, Value], ...] = ()
    """An object's keys and values."""

    def entry(self, key: str) -> Value | None:
        return next((value for name, value in self.entries if name == key), None)


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    line: int | None
    value: Value


@dataclass(frozen=True, slots=True)
class Block:
    type: str
    labels: tuple[str, ...]
    line: int | None
    attributes: tuple[Attribute, ...]
    blocks: tuple[Block, ...]

    def attribute(self, name: str) -> Attribute | None:
        return next((attribute for attribute in self.attributes if attribute.name == name), None)


def parse_file(path: Path) -> Block:
    """The file as one unlabelled block holding its top-level blocks and attributes."""
    try:
        with path.open() as handle:
            tree = hcl2.parse(handle, discard_comments=True)
    except (LarkError, OSError, UnicodeDecodeError) as e:
        raise InfraInvalidError(f"cannot parse: {e}", file=str(path)) from e
    return _body("", (), 1, tree.body)


def _body(type_: str, labels: tuple[str, ...], line: int | None, body: BodyRule) -> Block:
    attributes: list[Attribute] = []
    blocks: list[Block] = []
    for child in body.children:
        if isinstance(child, AttributeRule):
            name = str(child.identifier.serialize(_TEXT))
            attributes.append(Attribute(name, _line(child), _value(child.expression)))
        elif isinstance(child, BlockRule):
            names = tuple(str(label.serialize(_TEXT)) for label in child.labels)
            blocks.append(_body(names[0], names[1:], _line(child), child.body))
    return Block(type_, labels, line, tuple(attributes), tuple(blocks))


def _line(rule: Any) -> int | None:
    # python-hcl2 keeps lark's position metadata on each rule but does not expose it publicly.
    meta = getattr(rule, "_meta", None)
    if meta is None or getattr(meta, "empty", True):
        return None
    line = getattr(meta, "line", None)
    return line if isinstance(line, int) else None


def _value(expression: Any) -> Value:
    while isinstance(expression, ExprTermRule) and not expression.parentheses:
        expression = expression.expression
    for rule, read in _LITERALS:
        if isinstance(expression, rule):
            return read(expression)
    return Value("expression", str(expression.serialize(_TEXT)))


def _string(expression: StringRule) -> Value:
    parts = expression.string_parts
    literal = all(getattr(part.content, "lark_name", lambda: "")() == "STRING_CHARS" for part in parts)
    return Value("string", str(expression.serialize(_TEXT)) if literal else None)


def _word(expression: LiteralValueRule) -> Value:
    word = str(expression.token.value)
    return Value("null" if word == "null" else "bool", word)


def _object(expression: ObjectRule) -> Value:
    entries = tuple((str(element.key.serialize(_TEXT)), _value(element.expression)) for element in expression.elements)
    return Value("object", entries=entries)


_LITERALS: tuple[tuple[type | tuple[type, ...], Callable[[Any], Value]], ...] = (
    (StringRule, _string),
    (HeredocTemplateRule, lambda _heredoc: Value("string")),
    ((IntLitRule, FloatLitRule), lambda number: Value("number", str(number.serialize(_TEXT)))),
    (LiteralValueRule, _word),
    (TupleRule, lambda items: Value("tuple", items=tuple(_value(element) for element in items.elements))),
    (ObjectRule, _object),
)
"""The parse-tree rules whose value is known without evaluating, each with how to read it."""
