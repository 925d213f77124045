"""When each node of a live generated network uploads each file: pure, deterministic per seed.

Times are seconds after the stream's start (the first period's start). Period ``i`` closes at
``(i + 1) × period_seconds``; node ``n`` then uploads its record file and sidecars after its own
delay (drawn once per node from ``upload_delay``), plus ``lag_seconds`` when it lags, and its
signature file a moment later (``signature_gap``), or some periods later when the signature is
late, or never when it is missing. Missing signatures never cost a period its consensus: at most
``(nodes - 1) // 3`` are missing in a period (so more than two thirds of the nodes sign, whatever
the consensus ratio a reader uses), unless the period is one of ``no_consensus_periods``, where
fewer than a third sign (``ceil(nodes / 3) - 1`` nodes: none with three nodes or fewer).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from hedera_history.errors import ConfigError
from hedera_history.gen.config_and_output import FIRST_NODE_ACCOUNT, MAX_NODES, GeneratorConfig, StreamShape

_DERIVATION = "hedera-history/gen/live/v1"
_BLOCK_WRITER = 0
"""The node id block uploads are filed under (a block is the network's, not one node's)."""
UNBOUNDED_PERIODS = 1_000_000_000
"""The generator's period count when a live network plays until stopped (it never gets there)."""


class SignatureFate(Enum):
    ON_TIME = "on time"
    LATE = "late"
    MISSING = "missing"


class UploadKind(Enum):
    RECORD = "record"
    SIDECAR = "sidecar"
    SIGNATURE = "signature"
    BLOCK = "block"


@dataclass(frozen=True)
class LiveConfig(StreamShape):
    """A network to play live: the generated stream's shape and how its nodes upload."""

    period_seconds: float = 2.0
    periods: int | None = None
    """Periods to play; None: until stopped."""
    rotate_key: bool = True
    """Rotate one node's key halfway through (only when ``periods`` is given, as generated streams do)."""
    upload_delay: tuple[float, float] = (0.1, 1.5)
    """Each node's delay after a period closes before its record file lands (drawn once per node)."""
    signature_gap: tuple[float, float] = (0.02, 0.2)
    """From a node's record file to its signature file (drawn per period and node)."""
    lagging_nodes: tuple[int | str, ...] = ()
    """Nodes (node id or account) whose files all land ``lag_seconds`` later."""
    lag_seconds: float = 120.0
    missing_signature_rate: float = 0.0
    """Chance that a node never uploads a period's signature file."""
    late_signature_rate: float = 0.0
    """Chance that a node's signature file lands ``late_signature_periods`` periods late."""
    late_signature_periods: tuple[int, int] = (2, 5)
    no_consensus_periods: tuple[int, ...] = ()
    """Period indexes (0 = first) that too few nodes sign for consensus."""
    cutover_after: int | None = None
    """Record periods before the network streams blocks (``GeneratorConfig.cutover_after``)."""
    wrapped_periods: int = 0
    flat_blocks: bool = False
    tokens: bool = False
    """The token service and account kinds as ``GeneratorConfig.tokens``."""
    node_endpoints: bool = False
    """Address books with endpoints as ``GeneratorConfig.node_endpoints``."""
    lagging_node_ids: tuple[int, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "lagging_node_ids", tuple(sorted({self._node_id(n) for n in self.lagging_nodes})))
        object.__setattr__(self, "no_consensus_periods", tuple(sorted(set(self.no_consensus_periods))))
        low, high = self.upload_delay
        gap_low, gap_high = self.signature_gap
        late_low, late_high = self.late_signature_periods
        checks = [
            (self.period_seconds > 0, f"period must be longer than 0 s, got {self.period_seconds}"),
            (self.periods is None or self.periods >= 1, f"periods must be at least 1, got {self.periods}"),
            (0 <= low <= high, f"upload delay must be 0 <= low <= high, got {self.upload_delay}"),
            (0 <= gap_low <= gap_high, f"signature gap must be 0 <= low <= high, got {self.signature_gap}"),
            (self.lag_seconds >= 0, f"lag must not be negative, got {self.lag_seconds}"),
            (0 <= self.missing_signature_rate <= 1, f"missing rate must be 0..1, got {self.missing_signature_rate}"),
            (0 <= self.late_signature_rate <= 1, f"late rate must be 0..1, got {self.late_signature_rate}"),
            (
                self.missing_signature_rate + self.late_signature_rate <= 1,
                "missing and late signature rates add up to more than 1",
            ),
            (1 <= late_low <= late_high, f"late periods must be 1 <= low <= high, got {self.late_signature_periods}"),
            (
                all(p >= 0 and (self.periods is None or p < self.periods) for p in self.no_consensus_periods),
                f"no-consensus periods must be within the periods played, got {self.no_consensus_periods}",
            ),
            (
                self.cutover_after is None or self.cutover_after >= 0,
                f"cutover must be after 0 periods or more, got {self.cutover_after}",
            ),
            (
                self.wrapped_periods >= 0 and (self.cutover_after is not None or self.wrapped_periods == 0),
                f"wrapped periods ({self.wrapped_periods}) come after a cutover, at least 0",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)

    def _node_id(self, ref: int | str) -> int:
        if isinstance(ref, int):
            node_id = ref
        else:
            shard_realm, _, num = ref.rpartition(".")
            if shard_realm != "0.0" or not num.isdigit():
                raise ConfigError(f"a node is a node id or an account 0.0.N, got {ref!r}")
            node_id = int(num) - FIRST_NODE_ACCOUNT
        if not 0 <= node_id < min(self.nodes, MAX_NODES):
            raise ConfigError(f"no node {ref!r} among the {self.nodes} nodes")
        return node_id

    def generator_config(self, start_time_ns: int) -> GeneratorConfig:
        """The generated stream: its first period starts at ``start_time_ns``."""
        return GeneratorConfig(
            **self.shape(),
            periods=self.periods if self.periods is not None else UNBOUNDED_PERIODS,
            period_seconds=self.period_seconds,
            start_time_ns=start_time_ns,
            rotate_key=self.rotate_key and self.periods is not None,
            cutover_after=self.cutover_after,
            wrapped_periods=self.wrapped_periods,
            flat_blocks=self.flat_blocks,
            tokens=self.tokens,
            node_endpoints=self.node_endpoints,
        )


@dataclass(frozen=True, slots=True)
class NodeFiles:
    """What one node uploads for one period, as object names."""

    record: str
    sidecars: tuple[str, ...]
    signature: str


@dataclass(frozen=True, slots=True, order=True)
class Upload:
    """One object landing: ordered by time, then in upload order."""

    at: float
    """Seconds after the stream's start."""
    sequence: int
    """Breaks ties: a node's record file, sidecars, then signature file; nodes in id order."""
    period: int = field(compare=False)
    node_id: int = field(compare=False)
    kind: UploadKind = field(compare=False)
    name: str = field(compare=False)
    on_time: bool = field(compare=False)
    """False for a lagging node's files and a late signature file."""


@dataclass(frozen=True, slots=True)
class PeriodPlan:
    """How period ``period``'s files land."""

    period: int
    fates: tuple[SignatureFate, ...]
    """By node id."""
    late_by: tuple[int, ...]
    """Periods each node's signature file is late by (0 unless late)."""
    uploads: tuple[Upload, ...]


class UploadSchedule:
    """The upload plan of every period of a :class:`LiveConfig`, the same for the same seed."""

    def __init__(self, config: LiveConfig) -> None:
        self.config = config
        rng = random.Random(f"{_DERIVATION}/{config.seed}/node-delays")
        low, high = config.upload_delay
        self.node_delays = tuple(rng.uniform(low, high) for _ in range(config.nodes))
        self.block_delay = random.Random(f"{_DERIVATION}/{config.seed}/block-delay").uniform(low, high)
        """After the cutover: from a period's close to its block file landing (streamed to a block
        node, which writes it to the bucket)."""

    def close_of(self, period: int) -> float:
        """When period ``period`` ends, in seconds after the start."""
        return (period + 1) * self.config.period_seconds

    def fates(self, period: int) -> tuple[tuple[SignatureFate, ...], tuple[int, ...]]:
        """Each node's signature fate for ``period`` and how many periods late it is."""
        config = self.config
        rng = random.Random(f"{_DERIVATION}/{config.seed}/fates/{period}")
        fates: list[SignatureFate] = []
        late_by: list[int] = []
        for _ in range(config.nodes):
            draw = rng.random()
            periods_late = rng.randint(*config.late_signature_periods)
            if draw < config.missing_signature_rate:
                fates.append(SignatureFate.MISSING)
            elif draw < config.missing_signature_rate + config.late_signature_rate:
                fates.append(SignatureFate.LATE)
            else:
                fates.append(SignatureFate.ON_TIME)
            late_by.append(periods_late)
        if period in config.no_consensus_periods:
            signing = set(rng.sample(range(config.nodes), math.ceil(config.nodes / 3) - 1))
            fates = [fate if n in signing else SignatureFate.MISSING for n, fate in enumerate(fates)]
        else:
            missing = [n for n, fate in enumerate(fates) if fate is SignatureFate.MISSING]
            allowed = (config.nodes - 1) // 3
            for n in missing[allowed:]:
                fates[n] = SignatureFate.ON_TIME
        late_by = [late if fate is SignatureFate.LATE else 0 for fate, late in zip(fates, late_by, strict=True)]
        return tuple(fates), tuple(late_by)

    def block_plan(self, period: int, names: Sequence[str]) -> PeriodPlan:
        """A block period's uploads: ``names``, the block files ready when it closes (its own, and
        those of blocks its signature proves), landing together ``block_delay`` after the close."""
        at = self.close_of(period) + self.block_delay
        sequence = period * MAX_NODES * 100
        uploads = tuple(
            Upload(at, sequence + i, period, _BLOCK_WRITER, UploadKind.BLOCK, name, True)
            for i, name in enumerate(names)
        )
        return PeriodPlan(period=period, fates=(), late_by=(), uploads=uploads)

    def plan(self, period: int, files: Mapping[int, NodeFiles] | Sequence[NodeFiles]) -> PeriodPlan:
        """Period ``period``'s uploads; ``files``: what each node (by node id) uploads."""
        config = self.config
        fates, late_by = self.fates(period)
        rng = random.Random(f"{_DERIVATION}/{config.seed}/gaps/{period}")
        gaps = [rng.uniform(*config.signature_gap) for _ in range(config.nodes)]
        close = self.close_of(period)
        uploads: list[Upload] = []
        for node_id in range(config.nodes):
            node = files[node_id]
            lagging = node_id in config.lagging_node_ids
            at = close + self.node_delays[node_id] + (config.lag_seconds if lagging else 0.0)
            landing = [(at, UploadKind.RECORD, node.record, not lagging)]
            landing += [(at, UploadKind.SIDECAR, sidecar, not lagging) for sidecar in node.sidecars]
            if fates[node_id] is not SignatureFate.MISSING:
                late = late_by[node_id] * config.period_seconds
                signed_at = at + gaps[node_id] + late
                landing.append((signed_at, UploadKind.SIGNATURE, node.signature, not lagging and not late))
            sequence = (period * MAX_NODES + node_id) * 100
            uploads += [
                Upload(when, sequence + i, period, node_id, kind, name, on_time)
                for i, (when, kind, name, on_time) in enumerate(landing)
            ]
        return PeriodPlan(period=period, fates=fates, late_by=late_by, uploads=tuple(sorted(uploads)))
