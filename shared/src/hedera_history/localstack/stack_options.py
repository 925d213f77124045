"""The stack ``stack up`` asks for: its options over the settings, as one :class:`StackConfig`.

Fixed ports given on the command line win over the configured ones (``HEDERA_HISTORY_STACK_PORTS``);
a ``--network`` preset reaches the functions as their ``HEDERA_HISTORY_NETWORK``; the bootstrap book is
the one given or configured, else, when the stack follows a preset's network, the preset's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path

from hedera_history.config import Settings, env_name
from hedera_history.localstack.stack import StackConfig, StackPorts
from hedera_history.networks import network_named


def stack_config_for(
    settings: Settings,
    *,
    ports: Mapping[str, int],
    extra_env: Mapping[str, str],
    network: str | None,
    follow_source: str,
    follow_start: str,
    **changes: object,
) -> StackConfig:
    """The stack of ``settings`` with ``stack up``'s options on top (``ports``: the ones given, by
    service); ``changes`` set other fields (the state folder, the repository, detached or not)."""
    configured = {name: port for name, port in asdict(StackPorts.parse(settings.stack_ports)).items() if port}
    return StackConfig.from_settings(
        settings,
        ports=StackPorts.parse({**configured, **ports}),
        extra_env={**({env_name("network"): network} if network else {}), **extra_env},
        follow_source=follow_source,
        follow_start=follow_start,
        address_book=bootstrap_book(settings.address_book, network, following=bool(follow_source)),
        **changes,
    )


def bootstrap_book(given: str, network: str | None, *, following: bool) -> Path | None:
    """The stack's bootstrap book: the one given, else, when following a preset's network, the preset's."""
    if given:
        return Path(given)
    preset = network_named(network) if (following and network) else None
    return Path(preset.bootstrap_book()) if preset is not None else None
