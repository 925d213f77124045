"""The application's prefixes: which keys form a group, which topic a group travels on, and how.

A route is a literal prefix, or a regular expression matched at the start of a key; the text it
matches is the key's *prefix* (so one regular expression may yield several prefixes). Keys that no
route matches travel inline in the Batch. A consumer attributes a key to the one prefix that
begins it, so the prefixes must never begin one another.
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from hedera_history.errors import ConfigError


class Delivery(enum.Enum):
    SUB_BATCH = "sub_batch"
    """One sub-batch per prefix: a header and a few SubBatchMsg chunks, each under the byte budget."""
    PER_KEY = "per_key"
    """One BatchMsg / BatchDeleteMsg per key, counted in the Batch (for small, rare groups)."""


@dataclass(frozen=True, slots=True)
class PrefixRoute:
    prefix: str
    """A literal prefix, or a regular expression when ``regex`` is set."""
    topic: str
    delivery: Delivery = Delivery.SUB_BATCH
    regex: bool = False


@dataclass(frozen=True, slots=True)
class PrefixMatch:
    prefix: str
    route: PrefixRoute


@dataclass(frozen=True)
class Routing:
    """The ordered routes; the first route that matches a key wins. Batches go to ``default_topic``."""

    default_topic: str
    routes: tuple[PrefixRoute, ...] = ()
    _patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.default_topic or any(not route.topic for route in self.routes):
            raise ConfigError("every route needs a topic, and so does the default")
        patterns: list[re.Pattern[str]] = []
        for route in self.routes:
            if not route.prefix:
                raise ConfigError("a route's prefix must not be empty")
            try:
                patterns.append(re.compile(route.prefix if route.regex else re.escape(route.prefix)))
            except re.error as e:
                raise ConfigError(f"route prefix {route.prefix!r} is not a regular expression: {e}") from e
        object.__setattr__(self, "_patterns", tuple(patterns))
        require_prefix_free(route.prefix for route in self.routes if not route.regex)

    @classmethod
    def literal(cls, default_topic: str, prefix_topics: dict[str, str]) -> Routing:
        """Literal prefixes, each to its topic, all as sub-batches."""
        return cls(default_topic, tuple(PrefixRoute(prefix, topic) for prefix, topic in prefix_topics.items()))

    def match(self, key: str) -> PrefixMatch | None:
        """The prefix and route of ``key``, or None when it travels inline."""
        for route, pattern in zip(self.routes, self._patterns, strict=True):
            found = pattern.match(key)
            if found is None:
                continue
            if not found.group():
                raise ConfigError(f"route {route.prefix!r} matches an empty prefix of key {key!r}")
            return PrefixMatch(found.group(), route)
        return None


def require_prefix_free(prefixes: Iterable[str]) -> None:
    """:class:`ConfigError` when one prefix begins another (a key could belong to both)."""
    ordered = sorted(set(prefixes))
    # In sorted order a prefix comes just before the strings it begins, so neighbours suffice.
    for shorter, longer in itertools.pairwise(ordered):
        if longer.startswith(shorter):
            raise ConfigError(f"prefixes {shorter!r} and {longer!r} overlap")
