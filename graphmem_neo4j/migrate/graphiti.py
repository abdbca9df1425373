"""Graphiti → a migration plan.

Graphiti (graphiti_core `models/nodes/node_db_queries.py`, `models/edges/edge_db_queries.py`,
read here as 0.2x-0.31 write them to Neo4j) keeps episodes as `:Episodic` (content, source,
source_description, valid_at, created_at, group_id), entities as `:Entity` plus type labels
(name, summary), facts as `RELATES_TO` edges (name, fact, valid_at, invalid_at, created_at,
expired_at, episodes: the uuids of the episodes it came from), `MENTIONS` from an episode to
an entity, and `:Community` / `:Saga` nodes. Every group_id is one graphmem space.
"""

from __future__ import annotations

from typing import Any

from .names import category_of, relation_name, space_name, valid_identifier
from .plan import EntityRow, FactRow, MigrationPlan, TurnRow
from .source import SourceGraph, epoch_ms

GRAPHITI_LABELS = frozenset({"Entity"})


def turn_id(uuid: str) -> str:
    return f"graphiti-{uuid}"


def plan_graphiti(
    source: SourceGraph, *, group_id: str | None = None, space: str | None = None
) -> MigrationPlan:
    params = {"group_id": group_id}
    return build_graphiti_plan(
        episodes=source.read("graphiti_episodes", params),
        entities=source.read("graphiti_entities", params),
        edges=source.read("graphiti_edges", params),
        mentions=source.read("graphiti_mentions", params),
        reported=source.read("graphiti_reported", params),
        space=space,
    )


def _group(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def build_graphiti_plan(
    *,
    episodes: list[dict[str, Any]],
    entities: list[dict[str, Any]],
    edges: list[dict[str, Any]],
    mentions: list[dict[str, Any]],
    reported: list[dict[str, Any]],
    space: str | None = None,
) -> MigrationPlan:
    """Pure: the plan for the rows of the `graphiti_*` queries."""
    plan = MigrationPlan("graphiti")

    def target(group: str) -> str:
        return space if space is not None else space_name("graphiti", group)

    turns_of: dict[str, str] = {}
    for ep in episodes:
        eid, group = ep["element_id"], _group(ep.get("group_id"))
        reason = _episode_problem(ep, group)
        if reason:
            plan.skip(eid, "episode", reason)
            continue
        assert group is not None
        try:
            moment = epoch_ms(ep.get("valid_at"))
            if moment is None:
                moment = epoch_ms(ep.get("created_at"))
        except ValueError as e:
            plan.skip(eid, "episode", f"valid_at: {e}")
            continue
        if moment is None:
            plan.skip(eid, "episode", "no valid_at or created_at")
            continue
        tid = turn_id(ep["uuid"])
        turns_of[ep["uuid"]] = tid
        session = ep.get("saga") if isinstance(ep.get("saga"), str) else None
        speaker = ep.get("source_description") or ep.get("source") or "graphiti"
        plan.space(target(group), group).turns.append(
            TurnRow(eid, session or group or "graphiti", tid, str(speaker), ep["content"], moment)
        )

    for node in entities:
        eid, group = node["element_id"], _group(node.get("group_id"))
        if group is None:
            plan.skip(eid, "entity", "no group_id")
            continue
        name = node.get("name")
        if not isinstance(name, str) or not name.strip():
            plan.skip(eid, "entity", "name is not a string" if name is not None else "no name")
            continue
        try:
            created = epoch_ms(node.get("created_at"))
        except ValueError as e:
            plan.skip(eid, "entity", f"created_at: {e}")
            continue
        plan.space(target(group), group).entities.append(
            EntityRow(
                eid,
                " ".join(name.split()),
                category_of(list(node.get("labels") or []), ignore=GRAPHITI_LABELS),
                created,
            )
        )

    for edge in edges:
        reason = _fact(plan, edge, turns_of, target)
        if reason:
            plan.skip(edge["element_id"], "relationship", reason)

    for m in mentions:
        group = _group(m.get("group_id"))
        mentioning = turns_of.get(str(m.get("episode")))
        if group is None or mentioning is None or not isinstance(m.get("entity"), str):
            plan.skip(m["element_id"], "mention", "episode or entity not imported")
            continue
        plan.space(target(group), group).mentions.append((mentioning, m["entity"]))

    for row in reported:
        group = _group(row.get("group_id"))
        if group is None:
            continue
        spaced = plan.space(target(group), group)
        spaced.reported[row["kind"]] = spaced.reported.get(row["kind"], 0) + int(row["count"])
    return plan


def _episode_problem(ep: dict[str, Any], group: str | None) -> str:
    if group is None:
        return "no group_id"
    if not isinstance(ep.get("uuid"), str) or not ep["uuid"]:
        return "no uuid"
    content = ep.get("content")
    if not isinstance(content, str) or not content.strip():
        return "content is not a string" if content is not None else "no content"
    return ""


def _fact(plan: MigrationPlan, edge: dict[str, Any], turns_of: dict[str, str], target: Any) -> str:
    group = _group(edge.get("group_id"))
    if group is None:
        return "no group_id"
    if not isinstance(edge.get("uuid"), str) or not edge["uuid"]:
        return "no uuid"
    for end in ("source_name", "target_name"):
        value = edge.get(end)
        if not isinstance(value, str) or not value.strip():
            return f"{end.split('_')[0]} entity has no string name"
    relation = relation_name(str(edge.get("name") or ""))
    if relation is None:
        return f"relation name {edge.get('name')!r} has no letters or digits"
    reason = valid_identifier(relation, "relation")
    if reason:
        return f"relation {relation!r}: {reason}"
    try:
        valid_at = epoch_ms(edge.get("valid_at"))
        invalid_at = epoch_ms(edge.get("invalid_at"))
        created = epoch_ms(edge.get("created_at"))
        expired = epoch_ms(edge.get("expired_at"))
    except ValueError as e:
        return f"timestamp: {e}"
    if created is None:
        return "no created_at"
    valid_from = valid_at if valid_at is not None else created
    valid_to = invalid_at if invalid_at is not None else expired
    if valid_to is not None and valid_to < valid_from:
        valid_to = valid_from
    episodes = edge.get("episodes") or []
    if isinstance(episodes, str):  # FalkorDB-style drivers join them with commas
        episodes = [e for e in episodes.split(",") if e]
    evidence = tuple(turns_of[e] for e in episodes if e in turns_of)
    fact = edge.get("fact")
    subject = " ".join(edge["source_name"].split())
    obj = " ".join(edge["target_name"].split())
    plan.space(target(group), group).facts.append(
        FactRow(
            source_id=f"graphiti-{edge['uuid']}",
            subject=subject,
            relation=relation,
            object=obj,
            category=category_of(list(edge.get("source_labels") or []), ignore=GRAPHITI_LABELS),
            valid_from=valid_from,
            valid_to=valid_to,
            recorded_at=created,
            closed=invalid_at is not None or expired is not None,
            text=fact.strip()[:2000] if isinstance(fact, str) and fact.strip() else None,
            evidence=evidence,
        )
    )
    return ""
