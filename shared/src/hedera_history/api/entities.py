"""The mirror node's per-transaction fields derived from the body: ``name`` (the transaction type)
and ``entity_id`` (the entity the transaction is about)."""

from __future__ import annotations

from typing import Any

# The entity a transaction acts on, by its body's ``data`` case: (field of that body, id number field).
# Creations name no entity in their body: their entity is the one the receipt reports.
_BODY_ENTITY: dict[str, tuple[str, str]] = {
    "cryptoUpdateAccount": ("accountIDToUpdate", "accountNum"),
    "cryptoDelete": ("deleteAccountID", "accountNum"),
    "contractCall": ("contractID", "contractNum"),
    "contractUpdateInstance": ("contractID", "contractNum"),
    "contractDeleteInstance": ("contractID", "contractNum"),
    "fileAppend": ("fileID", "fileNum"),
    "fileUpdate": ("fileID", "fileNum"),
    "fileDelete": ("fileID", "fileNum"),
    "freeze": ("update_file", "fileNum"),
    "consensusUpdateTopic": ("topicID", "topicNum"),
    "consensusDeleteTopic": ("topicID", "topicNum"),
    "consensusSubmitMessage": ("topicID", "topicNum"),
    "tokenUpdate": ("token", "tokenNum"),
    "tokenMint": ("token", "tokenNum"),
    "tokenBurn": ("token", "tokenNum"),
    "tokenDeletion": ("token", "tokenNum"),
    "tokenWipe": ("token", "tokenNum"),
    "token_pause": ("token", "tokenNum"),
    "token_unpause": ("token", "tokenNum"),
    "token_fee_schedule_update": ("token_id", "tokenNum"),
    "token_update_nfts": ("token", "tokenNum"),
    "tokenFreeze": ("account", "accountNum"),
    "tokenUnfreeze": ("account", "accountNum"),
    "tokenGrantKyc": ("account", "accountNum"),
    "tokenRevokeKyc": ("account", "accountNum"),
    "tokenAssociate": ("account", "accountNum"),
    "tokenDissociate": ("account", "accountNum"),
    "scheduleDelete": ("scheduleID", "scheduleNum"),
    "scheduleSign": ("scheduleID", "scheduleNum"),
}
_SYSTEM_CASES = ("systemDelete", "systemUndelete")
_RECEIPT_ENTITIES = (
    ("accountID", "accountNum"),
    ("contractID", "contractNum"),
    ("fileID", "fileNum"),
    ("topicID", "topicNum"),
    ("tokenID", "tokenNum"),
    ("scheduleID", "scheduleNum"),
)


def entity_string(identifier: Any, field: str) -> str | None:
    """``shard.realm.num`` of a HAPI id message, None when unset (num 0)."""
    num = getattr(identifier, field, 0)
    if not num:
        return None
    return f"{identifier.shardNum}.{identifier.realmNum}.{num}"


def transaction_type_name(case: str | None) -> str:
    """The reference's ``TransactionTypes`` name: the body's ``data`` field upper-cased without
    underscores (``util_prng`` -> ``UTILPRNG``); ``UNKNOWN`` for a body that does not decode."""
    return case.upper().replace("_", "") if case else "UNKNOWN"


def transaction_entity_id(body: Any | None, case: str | None, receipt: Any) -> str | None:
    """The entity the transaction acts on (named in its body) or created (named in its receipt)."""
    if body is not None and case is not None:
        data = getattr(body, case)
        if case in _BODY_ENTITY:
            field, num_field = _BODY_ENTITY[case]
            found = entity_string(getattr(data, field), num_field)
            if found is not None:
                return found
        elif case in _SYSTEM_CASES:
            which = data.WhichOneof("id")
            if which == "fileID":
                return entity_string(data.fileID, "fileNum")
            if which == "contractID":
                return entity_string(data.contractID, "contractNum")
    for field, num_field in _RECEIPT_ENTITIES:
        found = entity_string(getattr(receipt, field), num_field)
        if found is not None:
            return found
    return None
