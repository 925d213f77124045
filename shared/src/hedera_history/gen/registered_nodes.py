"""Registered nodes (HIP-1137) in native blocks: RegisteredNodeCreate, RegisteredNodeUpdate and
RegisteredNodeDelete transactions on a fixed plan (``GeneratorConfig.registered_nodes``), with the
nodes' state the network keeps, for their block state changes (``gen.block_items``) and the truth.

The plan, by native period (the first after the cutover first): node 1 (a block node by domain name,
offering the status and state-proof APIs: no block node to read from) and node 2 (a mirror node by
IPv4 and an RPC relay by IPv6) created; node 1 updated (its description, a block-node endpoint by
IPv4 instead) and node 3 (a general service) created; node 2 deleted. Record files carry none, as
the transactions came with block streams. Each is paid by a user account with a fee."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history import hapi
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.items import RecordDetails
from hedera_history.gen.player import Player

CREATE, UPDATE, DELETE = "create", "update", "delete"
PLAN: tuple[tuple[tuple[str, int], ...], ...] = (
    ((CREATE, 1), (CREATE, 2)),
    ((UPDATE, 1), (CREATE, 3)),
    ((DELETE, 2),),
)
"""The registered-node transactions of each native period, in order: (what, node id)."""
_STATUS, _PUBLISH, _STATE_PROOF = 1, 2, 4
_DESCRIPTIONS = {1: "alpha block node", 2: "beta mirror", 3: "gamma indexer"}
NodeEndpoints = Callable[[Any], None]
"""Adds a node's ``RegisteredServiceEndpoint`` messages to a body's repeated field."""


def _alpha(target: Any) -> None:
    target.add(domain_name="block.alpha.example", port=40840, requires_tls=True).block_node.endpoint_api.extend(
        (_STATUS, _STATE_PROOF)
    )


def _alpha_updated(target: Any) -> None:
    target.add(ip_address=bytes([10, 1, 0, 1]), port=40841).block_node.endpoint_api.append(_PUBLISH)


def _beta(target: Any) -> None:
    target.add(ip_address=bytes([10, 1, 0, 2]), port=5600).mirror_node.SetInParent()
    target.add(ip_address=bytes.fromhex("fd000000000000000000000000000002"), port=7546).rpc_relay.SetInParent()


def _gamma(target: Any) -> None:
    target.add(domain_name="indexer.gamma.example", port=443, requires_tls=True).general_service.description = "indexer"


_CREATED: dict[int, NodeEndpoints] = {1: _alpha, 2: _beta, 3: _gamma}
_UPDATED: dict[int, NodeEndpoints] = {1: _alpha_updated}


class RegisteredNodePlayer(Player):
    """The registered-node transactions of one stream and the nodes they leave."""

    def __init__(self, *tools: Any) -> None:
        super().__init__(*tools)
        self.nodes: dict[int, dict[str, Any]] = {}
        """Node id -> its truth: description, created_ns, changed_ns, endpoint types; deleted nodes
        are dropped."""

    @staticmethod
    def planned(native_index: int) -> int:
        """How many registered-node transactions the ``native_index``-th native period holds."""
        return len(PLAN[native_index]) if native_index < len(PLAN) else 0

    def play(self, native_index: int, slots: list[int]) -> list[GeneratedItem]:
        """The native period's planned transactions, one per slot."""
        return [self._one(what, node_id, ns) for (what, node_id), ns in zip(PLAN[native_index], slots, strict=True)]

    def _one(self, what: str, node_id: int, consensus_ns: int) -> GeneratedItem:
        fee = self._fee()
        draft = self._new_draft(consensus_ns, self._pick_payer(fee))
        body = draft.body
        details = RecordDetails()
        if what == CREATE:
            create = body.registeredNodeCreate
            create.admin_key.ed25519 = self.writer.signer(draft.payer).public
            create.description = _DESCRIPTIONS[node_id]
            _CREATED[node_id](create.service_endpoint)

            def fill(record: hapi.TransactionRecord) -> None:
                record.receipt.registered_node_id = node_id

            details = RecordDetails(fill=fill)
            self.nodes[node_id] = {"created_ns": consensus_ns, "description": _DESCRIPTIONS[node_id]}
            self.nodes[node_id].update(self._endpoint_truth(create.service_endpoint, consensus_ns))
        elif what == UPDATE:
            update = body.registeredNodeUpdate
            update.registered_node_id = node_id
            update.description.value = _DESCRIPTIONS[node_id] + ", moved"
            _UPDATED[node_id](update.service_endpoint)
            self.nodes[node_id]["description"] = update.description.value
            self.nodes[node_id].update(self._endpoint_truth(update.service_endpoint, consensus_ns))
        else:
            body.registeredNodeDelete.registered_node_id = node_id
            del self.nodes[node_id]
        return self.writer.finish(draft, fee, {}, details)

    @staticmethod
    def _endpoint_truth(endpoints: Any, consensus_ns: int) -> dict[str, Any]:
        types = [e.WhichOneof("endpoint_type") for e in endpoints]
        return {"changed_ns": consensus_ns, "endpoint_types": types}

    def truth(self) -> dict[str, dict[str, Any]]:
        """The registered nodes at the end, by id (``shard.realm.num``-free: the number as text)."""
        return {str(node_id): dict(node) for node_id, node in sorted(self.nodes.items())}
