"""Utility-aware retrieval (EvoGraph-Mem §3.3) against the graph.

eq. 2: the top-k recorded queries most similar to the new one, among the tasks of its
structure (`task_similarity`: the same structure, or either unknown); eq. 3-4: plus their
query-graph neighbours of that structure (cypher/insights/seed_neighbours.cypher); eq. 7-10:
the active insights with positive evidence in that set, ranked by r = s − λc
(cypher/insights/retrieve.cypher; `scoring.py` is the reference in Python).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..lexical import MIN_GOALS
from ..nearest import nearest_one
from ..task_similarity import KeyReader, task_key
from .deps import Parts
from .goal_index import SpaceGoals
from .models import (
    InsightCandidate,
    Nearby,
    Retrieval,
    RetrievalParams,
    SimilarQuery,
    within_margin,
)
from .parsing import check_text

FLOOR_MIN_GOALS = MIN_GOALS
"""Goals a space needs before RetrievalParams.min_similarity applies to the fused similarity
(before, to the cosine). Word weights learnt from a handful of goals call every shared word
common, so two goals worded almost alike score low."""


def kind_is_learnt(params: RetrievalParams, reader: KeyReader, task_type: str | None) -> bool:
    """Whether what kind of task this is gets learnt from the space's goals (the fused
    similarity, no domain pack, no type from the caller) rather than told."""
    return params.lexical_weight > 0 and reader.pack is None and not task_type


class Retriever:
    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.goals = SpaceGoals()

    def retrieve(
        self,
        query: str,
        *,
        space: str,
        params: RetrievalParams | None = None,
        task_type: str | None = None,
    ) -> Retrieval:
        check_text(query, field="query")
        params = params or RetrievalParams()
        self.parts.require_space(space)
        self.parts.ensure_embedder_matches()
        vector = self.parts.embedder.embed([query])[0]
        reader = self.parts.structures(space, "insights")
        key = task_key(query, reader, task_type)
        return self.search(
            vector,
            space,
            params,
            [],
            key,
            query,
            strict=bool(task_type),
            learnt=kind_is_learnt(params, reader, task_type),
        )

    def retrieve_by_vector(
        self,
        vector: Sequence[float],
        *,
        space: str,
        params: RetrievalParams | None = None,
        exclude: Sequence[str] = (),
        query: str | None = None,
        task_type: str | None = None,
    ) -> Retrieval:
        params = params or RetrievalParams()
        self.parts.require_space(space)
        self.parts.ensure_embedder_matches()
        reader = self.parts.structures(space, "insights")
        key = task_key(query, reader, task_type) if query is not None else task_type or None
        return self.search(
            list(vector),
            space,
            params,
            list(exclude),
            key,
            query,
            strict=bool(task_type),
            learnt=query is not None and kind_is_learnt(params, reader, task_type),
        )

    def search(
        self,
        vector: list[float],
        space: str,
        params: RetrievalParams,
        exclude: list[str],
        key: str | None,
        text: str | None = None,
        *,
        strict: bool = False,
        learnt: bool = False,
    ) -> Retrieval:
        nearby = self.nearest(
            vector,
            space,
            params.k,
            exclude,
            key,
            rescore=False,
            text=text,
            params=params,
            strict=strict,
        )
        return self.rank(
            self.seeds(nearby, space, params, text),
            space,
            params,
            exclude,
            key,
            learnt=learnt,
        )

    def seeds(
        self, nearby: Sequence[Nearby], space: str, params: RetrievalParams, text: str | None
    ) -> list[SimilarQuery]:
        """Eq. 2's seeds: the nearby queries within `seed_margin` of the closest, and, when
        they are ranked by the fused similarity (the goal's text known, `lexical_weight` above
        0), at least `min_similarity` close: by the fused similarity once the space's word
        weights are learnt from FLOOR_MIN_GOALS goals, by the cosine before. A goal with a new
        word, in a space where such goals have been new kinds more often than its goals are
        (`GoalIndex.new_word_means_new_kind`), keeps only seeds as close as goals of one kind
        are: `edge_min_similarity`."""
        found = within_margin(nearby, params.seed_margin)
        if text is not None and params.lexical_weight > 0:
            index = self.goals.index(self.parts.store, space)
            learnt = len(index) >= FLOOR_MIN_GOALS
            floor = params.min_similarity
            if learnt and index.new_word_means_new_kind() and index.new_words(text):
                floor = max(floor, params.edge_min_similarity)
            found = [q for q in found if (q.similarity if learnt else q.cosine) >= floor]
        return [SimilarQuery(q.id, q.similarity) for q in found]

    def nearest(
        self,
        vector: list[float],
        space: str,
        k: int,
        exclude: list[str],
        key: str | None,
        *,
        rescore: bool = True,
        text: str | None = None,
        params: RetrievalParams | None = None,
        fresh: bool = False,
        strict: bool = False,
    ) -> list[Nearby]:
        """Eq. 2 among the queries compatible with `key` (all of them when it is None).

        With the query's `text` and a `lexical_weight` above 0, the similarity is
        (1 − w)·cosine + w·lexical (`lexical.GoalIndex`, word weights learnt from the space's
        goals), over the `lexical_pool` nearest by cosine; else the cosine alone. Then a query
        of another structure whose lexical similarity is at least `lexical_override` is
        compatible too (a second lookup among all the space's queries), unless the key is
        `strict`: the caller's task_type, which is taken as given.
        `rescore` recomputes the cosines from the vectors, the same on both engines to the
        last bit: needed when they are stored (recording), not when they only rank (retrieval,
        which then saves fetching every candidate's vector)."""
        if k == 0:
            return []
        params = params or RetrievalParams()
        weight = params.lexical_weight if text is not None else 0.0
        rows = nearest_one(
            self.parts.store,
            "insights/nearest_queries",
            vector,
            space=space,
            k=max(k, params.lexical_pool) if weight > 0 else k,
            params={"exclude": exclude, "task_key": key},
            rescore=rescore,
        )
        found = [Nearby(r["id"], float(r["similarity"]), float(r["similarity"])) for r in rows]
        if weight == 0:
            return found
        assert text is not None
        index = self.goals.index(self.parts.store, space, fresh=fresh)
        if key is not None and not strict and params.lexical_override <= 1:
            # a goal this close in words is a task of the same kind, whatever structure its
            # goal was read as (a space's goal model misreads some)
            wide = nearest_one(
                self.parts.store,
                "insights/nearest_queries",
                vector,
                space=space,
                k=max(k, params.lexical_pool),
                params={"exclude": exclude, "task_key": None},
                rescore=rescore,
            )
            seen = {q.id for q in found}
            extra = [
                Nearby(r["id"], float(r["similarity"]), float(r["similarity"]))
                for r in wide
                if r["id"] not in seen
            ]
            close = index.similarities(text, [q.id for q in extra])
            found += [q for q in extra if close[q.id] >= params.lexical_override]
        if not found:
            return found
        lexical = index.similarities(text, [q.id for q in found])
        fused = [
            Nearby(q.id, (1 - weight) * q.cosine + weight * lexical[q.id], q.cosine) for q in found
        ]
        fused.sort(key=lambda q: (-q.similarity, q.id))
        return fused[:k]

    def rank(
        self,
        seeds: Sequence[SimilarQuery],
        space: str,
        params: RetrievalParams,
        exclude: list[str],
        key: str | None,
        *,
        learnt: bool = False,
    ) -> Retrieval:
        """Eq. 3-10 from the seeds. `learnt`: the task's kind is learnt from the space's data
        (`kind_is_learnt`), so the query set is checked against the space's goals as they
        are now (`learnt_query_set`)."""
        if not seeds:
            return Retrieval((), 0, ())
        edges = self.parts.store.read(
            "insights/seed_neighbours",
            {
                "space": space,
                "seed_ids": [s.id for s in seeds],
                "exclude": exclude,
                "task_key": key,
            },
        )
        pairs = [(str(e["seed"]), str(e["near"]), float(e["similarity"])) for e in edges]
        if learnt and pairs:
            seeds, pairs = self.learnt_query_set(seeds, pairs, space, params)
            if not seeds:
                return Retrieval((), 0, ())
        query_ids = list(dict.fromkeys([s.id for s in seeds] + [near for _, near, _ in pairs]))
        rows = self.parts.store.read(
            "insights/retrieve",
            {
                "space": space,
                "query_ids": query_ids,
                "lambda": float(params.lam),
                "b": params.b,
            },
        )
        insights = tuple(
            InsightCandidate(
                r["id"], r["text"], float(r["score"]), int(r["positive"]), int(r["negative"])
            )
            for r in rows
        )
        size = int(rows[0]["query_set"]) if rows else 0
        return Retrieval(tuple(seeds), size, insights)

    def learnt_query_set(
        self,
        seeds: Sequence[SimilarQuery],
        edges: Sequence[tuple[str, str, float]],
        space: str,
        params: RetrievalParams,
    ) -> tuple[list[SimilarQuery], list[tuple[str, str, float]]]:
        """The seeds and (seed, neighbour, cosine) edges that stand under the space's word
        weights of now. An edge stands while the fused similarity of its two goals is still at
        least `edge_min_similarity`: one drawn when the space had seen few goals of either kind
        was weighed with words that later turn out to be boilerplate or arguments. A seed whose
        standing edges make it one of a tight group of goals stands only while the task is
        about as close to it as the group's goals are to each other: within `seed_margin` of
        its closest standing edge. A task of a kind the space has not seen is otherwise handed
        the insights of the nearest group of another kind worded alike (find a plant / find a
        living thing)."""
        index = self.goals.index(self.parts.store, space)
        weight = params.lexical_weight
        tightness: dict[str, float] = {}
        standing = []
        for seed, near, cosine in edges:
            fused = (1 - weight) * cosine + weight * index.stored_similarity(seed, near)
            if fused >= params.edge_min_similarity:
                standing.append((seed, near, cosine))
                tightness[seed] = max(tightness.get(seed, fused), fused)
        kept = [
            s
            for s in seeds
            if s.id not in tightness or s.similarity >= tightness[s.id] - params.seed_margin
        ]
        ids = {s.id for s in kept}
        return kept, [e for e in standing if e[0] in ids]
