"""An account or contract named in a path by id, EVM address or alias, as its id: an alias or a
non-long-zero EVM address is looked up in the entity index (the aliases history recorded at the
entity's creation, ``store.reader_entities``); 404 when history records none."""

from __future__ import annotations

from hedera_history.api.errors import NotFoundError
from hedera_history.api.transaction_filters import entity_reference
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import entities_with_alias


def resolve_entity(reader: HistoryReader, text: str, name: str) -> str:
    found = entity_reference(text, name)
    if isinstance(found, str):
        return found
    entities = entities_with_alias(reader, found)
    if not entities:
        raise NotFoundError(f"no entity with the alias or EVM address {text[:100]} in history")
    return entities[0]
