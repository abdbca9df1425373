"""The paper's retrieval (`sf` mode): embed the entities the query refers to, take the top
roots over the entity index (cosine ≥ 0.75), expand two hops (cap 15 nodes), and return the
subgraph and its source turns, ranked by the similarity of the roots they reach."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from ..nearest import Probe, nearest
from .deps import Parts
from .extract import OfflineExtractor
from .fusion import Candidate
from .models import ConversationConfig, SearchHit, SubgraphEdge, SubgraphNode, TurnInput
from .state import SpaceFacts, SpaceState


def sf_search(
    parts: Parts,
    cfg: ConversationConfig,
    state: SpaceState,
    facts: SpaceFacts,
    query: str,
    space: str,
    k: int,
) -> tuple[list[SearchHit], tuple[SubgraphNode, ...], tuple[SubgraphEdge, ...]]:
    store = parts.store
    speakers = facts.speakers
    extraction = OfflineExtractor().extract_one(
        TurnInput(session="", turn_id="query", speaker="", text=query), speakers
    )
    names = [e.name for e in extraction.entities if e.type != "date"] or [query]
    per_name = nearest(
        store,
        "conversation/sf_roots",
        [Probe(str(i), e) for i, e in enumerate(parts.embedder.embed(names))],
        space=space,
        k=cfg.sf_roots,
        min_similarity=cfg.sf_min_similarity,
        exact=state.entity_count(space) <= cfg.exact_scan_turns * 2,
    )
    best_of: dict[str, float] = {}
    for name_hits in per_name.values():
        for hit in name_hits:
            eid = str(hit["id"])
            best_of[eid] = max(best_of.get(eid, -1.0), float(hit["similarity"]))
    top = sorted(best_of.items(), key=lambda item: (-item[1], item[0]))[: cfg.sf_roots]
    if not top:
        return [], (), ()
    root_sim = dict(top)
    reached = store.read(
        "conversation/sf_expand",
        {"space": space, "roots": list(root_sim), "fanout": cfg.sf_node_cap},
    )
    chosen: dict[str, Mapping[str, Any]] = {}
    for row in sorted(
        reached, key=lambda r: (int(r["hop"]), -float(root_sim.get(str(r["id"]), 0)))
    ):
        if len(chosen) >= cfg.sf_node_cap:
            break
        if int(row["hop"]) <= cfg.sf_hops:
            chosen.setdefault(str(row["id"]), row)
    best = max(root_sim.values())
    weight = {
        eid: root_sim.get(eid, best) * (0.5 ** int(row["hop"])) for eid, row in chosen.items()
    }
    nodes = tuple(
        SubgraphNode(
            id=eid,
            name=str(row["name"]),
            type=str(row["type"]),
            hop=int(row["hop"]),
            similarity=root_sim.get(eid),
        )
        for eid, row in chosen.items()
    )
    edge_rows = store.read(
        "conversation/sf_edges", {"space": space, "ids": list(chosen), "limit": 100}
    )
    edges = tuple(
        SubgraphEdge(
            source=str(r["source"]),
            target=str(r["target"]),
            type=str(r["type"]),
            fact=str(r["fact"]),
            turn_id=str(r["turn_id"]) if r["turn_id"] is not None else None,
        )
        for r in edge_rows
    )
    scores: dict[str, float] = defaultdict(float)
    candidates: dict[str, Candidate] = {}
    for row in store.read(
        "conversation/sf_turns", {"space": space, "ids": list(chosen), "per_entity": 50}
    ):
        c = Candidate.from_row(row)
        candidates[c.id] = c
        scores[c.id] += sum(weight.get(str(e), 0.0) for e in row["entities"])
    # A turn that states an edge of the subgraph is its direct source.
    fact_turns = {e.turn_id for e in edges if e.turn_id}
    for tid in fact_turns:
        scores[tid] += 0.5 * best
    missing = [t for t in fact_turns if t not in candidates]
    if missing:
        for row in store.read("conversation/get_turns", {"space": space, "ids": missing}):
            c = Candidate.from_row(row)
            candidates[c.id] = c
    ranked = sorted((tid for tid in scores if tid in candidates), key=lambda t: (-scores[t], t))[:k]
    hits = [
        SearchHit(
            turn_id=tid,
            session=candidates[tid].session,
            speaker=candidates[tid].speaker,
            text=candidates[tid].text,
            score=scores[tid],
            via=("sf",),
            time=candidates[tid].time,
            seq=candidates[tid].seq,
        )
        for tid in ranked
    ]
    return hits, nodes, edges
