"""Retrieval (eq. 2-10) in Cypher against its plain-Python reference, on random graphs loaded
through `graphmem import` (which also exercises the insights portability files)."""

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.insights.models import RetrievalParams
from graphmem_neo4j.insights.scoring import EvidenceNode, expand, rank_insights, top_k
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import import_dump

DIM = 64


def unit(rng: random.Random) -> list[float]:
    v = [rng.gauss(0, 1) for _ in range(DIM)]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def random_graph(seed: int, n_queries: int = 40, n_insights: int = 25) -> dict[str, Any]:
    rng = random.Random(seed)
    queries = {f"q{i}": unit(rng) for i in range(n_queries)}
    similar = {
        (a, b)
        for a in queries
        for b in rng.sample(sorted(queries), 2)
        if a != b and rng.random() < 0.6
    }
    insights = []
    for i in range(n_insights):
        positive = set(rng.sample(sorted(queries), rng.randint(0, 6)))
        negative = set(rng.sample(sorted(queries), rng.randint(0, 4))) - positive
        insights.append(
            EvidenceNode(
                f"i{i}",
                f"insight {i}",
                rng.random() < 0.8,
                frozenset(positive),
                frozenset(negative),
            )
        )
    return {"queries": queries, "similar": similar, "insights": insights}


def write_dump(
    path: Path, space: str, g: dict[str, Any], keys: dict[str, str | None] | None = None
) -> Path:
    lines: list[dict[str, Any]] = [
        {
            "kind": "header",
            "format": "graphmem-export",
            "version": 1,
            "space": space,
            "embedding_model": "hash-64",
            "embedding_dimension": DIM,
        }
    ]
    for qid, vec in g["queries"].items():
        props = {"text": qid, "status": "resolved", "recorded_at": 1, "embedding": vec}
        if keys is not None and keys[qid] is not None:
            props["task_key"] = keys[qid]
        lines.append({"kind": "node", "label": "Query", "id": qid, "props": props})
    for node in g["insights"]:
        props = {"text": node.text, "active": node.active, "created_at": 1, "updated_at": 1}
        lines.append({"kind": "node", "label": "Insight", "id": node.id, "props": props})
        for rel, targets in (("POSITIVE", node.positive), ("NEGATIVE", node.negative)):
            lines += [
                {
                    "kind": "rel",
                    "type": rel,
                    "source": node.id,
                    "source_label": "Insight",
                    "target": q,
                    "target_label": "Query",
                    "props": {},
                }
                for q in sorted(targets)
            ]
    lines += [
        {
            "kind": "rel",
            "type": "SIMILAR_QUERY",
            "source": a,
            "source_label": "Query",
            "target": b,
            "target_label": "Query",
            "props": {"similarity": 0.5},
        }
        for a, b in sorted(g["similar"])
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def reference(
    g: dict[str, Any],
    vector: list[float],
    params: RetrievalParams,
    *,
    key: str | None = None,
    keys: dict[str, str | None] | None = None,
) -> list[tuple[str, float, int, int]]:
    seeds = top_k(vector, g["queries"], params.k, key=key, keys=keys, margin=params.seed_margin)
    neighbours: dict[str, set[str]] = {}
    for a, b in g["similar"]:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    query_set = expand(seeds, neighbours, key=key, keys=keys)
    ranked = rank_insights(query_set, g["insights"], lam=params.lam, b=params.b)
    return [(r.id, r.score, r.positive, r.negative) for r in ranked]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cypher_retrieval_matches_the_reference(
    memory: GraphMemory, space: str, tmp_path: Path, seed: int
) -> None:
    memory.init()
    g = random_graph(seed)
    import_dump(memory, write_dump(tmp_path / "g.jsonl", space, g), space=space)
    rng = random.Random(seed * 100)
    compared = 0
    for params in (
        RetrievalParams(k=3, b=5, lam=1.0),
        RetrievalParams(k=5, b=3, lam=0.0, seed_margin=math.inf),
        RetrievalParams(k=4, b=10, lam=2.5, seed_margin=0.2),
    ):
        for _ in range(4):
            vector = unit(rng)
            got = memory.insights.retrieve_by_vector(vector, space=space, params=params)
            expected = reference(g, vector, params)
            assert [(c.id, c.score, c.positive, c.negative) for c in got.insights] == expected
            compared += len(expected)
    assert compared > 10  # the graphs are dense enough that retrieval returns something


def test_archived_insights_are_never_retrieved(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    memory.init()
    g = random_graph(7)
    import_dump(memory, write_dump(tmp_path / "g.jsonl", space, g), space=space)
    archived = {n.id for n in g["insights"] if not n.active}
    assert archived
    rng = random.Random(7)
    for _ in range(10):
        got = memory.insights.retrieve_by_vector(
            unit(rng), space=space, params=RetrievalParams(k=8, b=30)
        )
        assert not archived & {c.id for c in got.insights}


def test_a_crowded_shared_index_falls_back_to_an_exact_scan(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    """Another space holds vectors nearer to the query than any of ours: the kNN over the
    shared index returns only theirs, and the exact scan must find our top-k."""
    memory.init()
    g = random_graph(11)
    import_dump(memory, write_dump(tmp_path / "ours.jsonl", space, g), space=space)
    vector = unit(random.Random(99))
    crowd = {"queries": {f"c{i}": vector for i in range(30)}, "similar": set(), "insights": []}
    import_dump(
        memory,
        write_dump(tmp_path / "crowd.jsonl", space + "-crowd", crowd),
        space=space + "-crowd",
    )
    params = RetrievalParams(k=4, b=10, seed_margin=math.inf)
    got = memory.insights.retrieve_by_vector(vector, space=space, params=params)
    assert [q.id for q in got.queries] == top_k(vector, g["queries"], 4)
    assert [(c.id, c.score) for c in got.insights] == [
        (i, s) for i, s, _, _ in reference(g, vector, params)
    ]


def test_lambda_decides_whether_conflicts_sink_an_insight(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    rng = random.Random(5)
    q = {f"q{i}": unit(rng) for i in range(6)}
    insights = [
        EvidenceNode(
            "broad", "broad", True, frozenset({"q0", "q1", "q2"}), frozenset({"q3", "q4", "q5"})
        ),
        EvidenceNode("narrow", "narrow", True, frozenset({"q0"}), frozenset()),
    ]
    memory.init()
    import_dump(
        memory,
        write_dump(
            tmp_path / "g.jsonl", space, {"queries": q, "similar": set(), "insights": insights}
        ),
        space=space,
    )
    vector = q["q0"]

    def ids(lam: float) -> list[str]:
        params = RetrievalParams(k=6, b=2, lam=lam, seed_margin=math.inf)
        found = memory.insights.retrieve_by_vector(vector, space=space, params=params)
        return [c.id for c in found.insights]

    assert ids(0.0) == ["broad", "narrow"]
    assert ids(1.0) == ["narrow", "broad"]


KEY_TEXTS = {"heat": "heat some egg and put it in fridge", "cool": "put a cool egg in fridge"}


@pytest.mark.parametrize("seed", [4, 5])
def test_keyed_retrieval_matches_the_reference(
    memory: GraphMemory, space: str, tmp_path: Path, seed: int
) -> None:
    """Queries of several task structures (and some with none, some recorded before keys):
    eq. 2 and the neighbour expansion keep only queries of the new query's structure or of
    unknown structure, exactly as the Python reference does."""
    memory.init()
    g = random_graph(seed, n_queries=60)
    rng = random.Random(seed)
    keys = {q: rng.choice(["heat", "cool", "", None]) for q in g["queries"]}
    import_dump(memory, write_dump(tmp_path / "g.jsonl", space, g, keys), space=space)
    compared = excluded = 0
    for key, text in KEY_TEXTS.items():
        for _ in range(4):
            vector = unit(rng)
            params = RetrievalParams(k=4, b=10, lexical_weight=0)  # the reference: cosine
            got = memory.insights.retrieve_by_vector(vector, space=space, params=params, query=text)
            expected = reference(g, vector, params, key=key, keys=keys)
            assert [(c.id, c.score, c.positive, c.negative) for c in got.insights] == expected
            assert all(keys[q.id] in (key, None) for q in got.queries)
            compared += len(expected)
            excluded += expected != reference(g, vector, params)
    assert compared > 10
    assert excluded > 0  # the keys changed what was retrieved
