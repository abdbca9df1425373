"""Mem0 1.0.x graph store → a migration plan.

Mem0 (`mem0/memory/graph_memory.py`, 1.0.0-1.0.11) writes one node per entity with `name`,
`user_id`, optional `agent_id`/`run_id`, `embedding`, `created` (epoch ms) and `mentions`,
labelled with its entity type (or `__Entity__` plus the type with `base_label`), and one
relationship per (source, relation, destination) whose type is the relation text. 1.0.0 sets
`created` on a relationship; later releases `created_at`/`updated_at`/`mentions`, and from
1.0.11 a delete is soft: `valid = false`, `invalidated_at = datetime()`.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .names import category_of, entity_name, relation_name, space_name, valid_identifier
from .plan import EntityRow, FactRow, MigrationPlan
from .source import SourceGraph, epoch_ms

MEM0_LABELS = frozenset({"__Entity__"})


def fact_id(user_id: str, source: str, relation: str, target: str) -> str:
    """Mem0 keeps one relationship per (source, type, destination) of a user: so does the id."""
    digest = hashlib.sha256("\x1f".join((user_id, source, relation, target)).encode()).hexdigest()
    return f"mem0-{digest[:24]}"


def _name_problem(name: Any) -> str | None:
    if not isinstance(name, str):
        return "name is not a string" if name is not None else "no name"
    if not entity_name(name):
        return "empty name"
    return None


def plan_mem0(
    source: SourceGraph, *, user_id: str | None = None, space: str | None = None
) -> MigrationPlan:
    nodes = source.read("mem0_nodes", {"user_id": user_id})
    rels = source.read("mem0_relationships", {"user_id": user_id})
    return build_mem0_plan(nodes, rels, user_id=user_id, space=space)


def build_mem0_plan(
    nodes: list[dict[str, Any]],
    rels: list[dict[str, Any]],
    *,
    user_id: str | None = None,
    space: str | None = None,
) -> MigrationPlan:
    """Pure: the plan for the rows of `mem0_nodes` and `mem0_relationships`."""
    plan = MigrationPlan("mem0")

    def target(uid: str) -> str:
        return space if space is not None else space_name("mem0", uid)

    for node in nodes:
        eid = node["element_id"]
        uid = node.get("user_id")
        if not isinstance(uid, str) or not uid:
            plan.skip(eid, "node", "no user_id")
            continue
        if user_id is not None and uid != user_id:
            continue
        problem = _name_problem(node.get("name"))
        if problem:
            plan.skip(eid, "node", problem)
            continue
        try:
            created = epoch_ms(node.get("created"))
        except ValueError as e:
            plan.skip(eid, "node", f"created: {e}")
            continue
        plan.space(target(uid), uid).entities.append(
            EntityRow(
                eid,
                entity_name(node["name"]),
                category_of(list(node.get("labels") or []), ignore=MEM0_LABELS),
                created,
            )
        )

    for rel in rels:
        skipped = _fact(plan, rel, user_id, target)
        if skipped:
            plan.skip(rel["element_id"], "relationship", skipped)
    return plan


def _fact(plan: MigrationPlan, rel: dict[str, Any], user_id: str | None, target: Any) -> str:
    """Adds the relationship's fact to the plan; returns why it is skipped, or ''."""
    a_user, b_user = rel.get("source_user"), rel.get("target_user")
    if not isinstance(a_user, str) or not a_user:
        return "source node has no user_id"
    if not isinstance(b_user, str) or not b_user:
        return "target node has no user_id"
    if a_user != b_user:
        return f"ends belong to two users ({a_user!r}, {b_user!r})"
    if user_id is not None and a_user != user_id:
        return ""
    for end in ("source_name", "target_name"):
        problem = _name_problem(rel.get(end))
        if problem:
            return f"{end.split('_')[0]} node: {problem}"
    relation = relation_name(str(rel["type"]))
    if relation is None:
        return f"relation type {rel['type']!r} has no letters or digits"
    reason = valid_identifier(relation, "relation")
    if reason:
        return f"relation {relation!r}: {reason}"
    try:
        created = epoch_ms(rel.get("created_at"))
        if created is None:
            created = epoch_ms(rel.get("created"))
        updated = epoch_ms(rel.get("updated_at"))
        invalidated = epoch_ms(rel.get("invalidated_at"))
    except ValueError as e:
        return f"timestamp: {e}"
    if created is None:
        return "no created/created_at timestamp"
    closed = rel.get("valid") is False
    valid_to: int | None = None
    if closed:
        valid_to = invalidated if invalidated is not None else updated
        if valid_to is None:
            return "soft-deleted without invalidated_at or updated_at"
    subject = entity_name(rel["source_name"])
    obj = entity_name(rel["target_name"])
    category = category_of(list(rel.get("source_labels") or []), ignore=MEM0_LABELS)
    plan.space(target(a_user), a_user).facts.append(
        FactRow(
            source_id=fact_id(a_user, rel["source_name"], str(rel["type"]), rel["target_name"]),
            subject=subject,
            relation=relation,
            object=obj,
            category=category,
            valid_from=created,
            valid_to=valid_to,
            recorded_at=created,
            closed=closed,
        )
    )
    return ""
