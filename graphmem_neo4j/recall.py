"""Recall: the best context for an agent's next step, from all four layers, within a token
budget.

    gather candidates from each layer in parallel (the query is embedded once: the layers
    share the vector through the embedder's memo):
        conversation  hybrid turn search (cosine of each turn fetched for the common scale)
        facts         active units on the evidence paths of HiGram localisation (§3.2)
        insights      utility-ranked insights of similar past tasks (EvoGraph-Mem §3.3)
        experience    similar tasks with their lessons, and shared workflows (EMG §4.3)
    → one score scale (recall_rank.score) → de-duplicate → pack greedily into the budget
    → touch the packed turns, count the tokens per layer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .errors import InputError
from .recall_cache import QueryMemo
from .recall_models import Candidate, LayerReport, RecallConfig, RecallResult
from .recall_rank import Coverage, calibrate, deduplicate, pack, relative, score
from .tokens import LAYERS, Layer

if TYPE_CHECKING:
    from .memory import GraphMemory

log = logging.getLogger(__name__)
Vector = Callable[[], list[float]]
"""The query's embedding, computed on first need (by whichever layer asks first)."""
MAX_QUERY = 2000
MIN_BUDGET = 20
MAX_BUDGET = 200_000


def check_layers(layers: Iterable[str] | None) -> tuple[Layer, ...]:
    """The layers to ask, in canonical order; all when None. Unknown names are an InputError."""
    if layers is None:
        return LAYERS
    if isinstance(layers, str):
        layers = [p.strip() for p in layers.split(",") if p.strip()]
    wanted = list(layers)
    unknown = [name for name in wanted if name not in LAYERS]
    if unknown or not wanted:
        raise InputError(
            f"unknown layer {unknown[0]!r}: use {', '.join(LAYERS)}"
            if unknown
            else f"name at least one layer: {', '.join(LAYERS)}",
            field="layers",
        )
    return tuple(layer for layer in LAYERS if layer in wanted)


def check_request(query: Any, budget: Any) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InputError("the query must be a non-empty string", field="query")
    if len(query) > MAX_QUERY:
        raise InputError(f"the query is longer than {MAX_QUERY} characters", field="query")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise InputError("must be an integer number of tokens", field="budget_tokens")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InputError(
            f"must be between {MIN_BUDGET} and {MAX_BUDGET} tokens", field="budget_tokens"
        )
    return query.strip()


def _day(ms: int | None) -> str:
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()


class RecallService:
    def __init__(self, memory: GraphMemory, config: RecallConfig | None = None) -> None:
        self.memory = memory
        self.config = config or RecallConfig()
        self._pool: ThreadPoolExecutor | None = None
        self._writer: ThreadPoolExecutor | None = None
        self._writes: list[Future[None]] = []
        self._lock = threading.Lock()

    def close(self) -> None:
        self.settle()
        for pool in (self._pool, self._writer):
            if pool is not None:
                pool.shutdown(wait=True)
        self._pool = self._writer = None

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphmem-recall")
            return self._pool

    def after(self, write: Callable[[], None]) -> None:
        """Run a write that no answer depends on (access counts, token counters) after the
        recall has returned, in order, on one background thread; `settle` waits for them."""
        with self._lock:
            if self._writer is None:
                self._writer = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="graphmem-recall-write"
                )
            self._writes = [w for w in self._writes if not w.done()]
            self._writes.append(self._writer.submit(_logged, write))

    def settle(self) -> None:
        """Wait until the writes of earlier recalls are done."""
        with self._lock:
            pending, self._writes = self._writes, []
        for write in pending:
            write.result()

    def recall(
        self,
        query: str,
        *,
        space: str,
        budget_tokens: int = 2000,
        layers: Iterable[str] | None = None,
    ) -> RecallResult:
        """A prompt-ready context for `query` of at most `budget_tokens` (estimated), each
        line labelled with its layer, node label, id, score and why it was chosen."""
        query = check_request(query, budget_tokens)
        wanted = check_layers(layers)
        memory = self.memory
        memory.require_space(space)
        memory.ensure_embedder_matches()
        started = time.perf_counter()

        # The query (with the experience layer's two texts: the task and its skeleton) is
        # embedded in one model call on this thread while the layers run; a layer that needs
        # a vector waits for it (the embedder's memo), so the searches that need none
        # (full-text, the entity graph, the facts' name lookups) overlap with the model.
        texts = [query]
        if "experience" in wanted:
            texts += memory.experience.query_texts(query, space=space)
        memo = memory.embedder
        embed_now = memo.reserve(texts) if isinstance(memo, QueryMemo) else None

        def embedded() -> list[float]:
            return memory.embedder.embed([query])[0]

        gatherers: dict[Layer, Callable[[], list[Candidate]]] = {
            "conversation": lambda: self._conversation(query, embedded, space, budget_tokens),
            "facts": lambda: self._facts(query, embedded, space),
            "insights": lambda: self._insights(query, embedded, space),
            "experience": lambda: self._experience(query, space),
        }
        try:
            futures = {layer: self._executor().submit(_timed, gatherers[layer]) for layer in wanted}
        finally:
            if embed_now is not None:  # always: a reserved text nobody embeds blocks its askers
                embed_now()
        found = {layer: future.result() for layer, future in futures.items()}
        candidates = [c for layer in wanted for c in found[layer][0]]
        kept, duplicates = deduplicate(
            score(candidates, self.config), self.config.duplicate_overlap
        )
        packing = pack(kept, budget=budget_tokens, config=self.config)
        turns = [i.id for i in packing.items if i.layer == "conversation"]
        if turns and self.config.touch:
            self.after(lambda: memory.conversation.touch(turns, space=space))
        reports = tuple(
            LayerReport(
                layer=layer,
                candidates=len(found[layer][0]),
                packed=sum(1 for i in packing.items if i.layer == layer),
                tokens=packing.tokens_by_layer.get(layer, 0),
                elapsed_ms=found[layer][1],
            )
            for layer in wanted
        )
        return RecallResult(
            query=query,
            space=space,
            budget_tokens=budget_tokens,
            context=packing.context,
            items=packing.items,
            tokens_used=packing.tokens_used,
            tokens_by_layer={layer: packing.tokens_by_layer.get(layer, 0) for layer in wanted},
            layers=reports,
            duplicates=duplicates,
            over_budget=packing.over_budget,
            below_min_score=packing.below_min_score,
            elapsed_ms=(time.perf_counter() - started) * 1000,
        )

    # --- the layers ------------------------------------------------------------------------
    def _relevance(self, cosine: float) -> float:
        floor, full = self.config.band(self.memory.embedder.name)
        return calibrate(cosine, floor, full)

    def _similarities(
        self, query: str, ids: Sequence[str], vector: Vector, space: str
    ) -> dict[str, float]:
        if not ids:
            return {}
        rows = self.memory.store.read(
            query, {"space": space, "ids": list(ids), "embedding": vector()}
        )
        return {str(r["id"]): float(r["similarity"]) for r in rows}

    def _conversation(self, query: str, vector: Vector, space: str, budget: int) -> list[Candidate]:
        k = self.config.turns_wanted(budget)
        hits = self.memory.conversation.search(query, space=space, k=k, touch=False).hits
        cosines = self._similarities(
            "recall/turn_similarity", [h.turn_id for h in hits], vector, space
        )
        strengths = relative([h.score for h in hits])
        coverage = Coverage(query, ignore=self.memory.conversation.speakers(space))
        found = []
        for hit, n in zip(hits, strengths, strict=True):
            cosine = cosines.get(hit.turn_id, 0.0)
            words = coverage(hit.text)
            day = _day(hit.time)
            found.append(
                Candidate(
                    layer="conversation",
                    label="Turn",
                    id=hit.turn_id,
                    text=f"{day + ' ' if day else ''}{hit.speaker}: {hit.text}",
                    relevance=max(self._relevance(cosine), words),
                    strength=n,
                    why=f"{'+'.join(hit.via)}, cos {cosine:.2f}, words {words:.2f}",
                    details={
                        "session": hit.session,
                        "hybrid_score": round(hit.score, 4),
                        "via": list(hit.via),
                        "cosine": round(cosine, 4),
                        "word_coverage": round(words, 4),
                    },
                    order=(hit.time if hit.time is not None else -1, hit.session, hit.seq or 0),
                )
            )
        return found

    def _facts(self, query: str, vector: Vector, space: str) -> list[Candidate]:
        """Units on the evidence paths that answer the question: a path counts when its
        attribute match reaches what `facts ask` needs to name an answer (a path that only
        shares the subject does not; it would bring every fact about the person). A unit's
        strength is that attribute match, an absolute score, 0.9 of it off the path's head;
        its relevance the better of its calibrated cosine and how far the match is above
        that threshold."""
        service = self.memory.facts
        threshold = service.config.min_answer_attribute
        paths = service.localise_question(query, space=space).paths
        best: dict[str, tuple[float, int, bool, float]] = {}
        units = {}
        for number, path in enumerate(paths[: self.config.facts_k], start=1):
            if path.score.attribute < threshold:
                continue
            for unit in path.units:
                head = unit.id == path.head.id
                value = path.score.attribute * (1.0 if head else 0.9)
                if unit.id not in best or value > best[unit.id][0]:
                    best[unit.id] = (value, number, head, path.score.total)
                    units[unit.id] = unit
        ids = sorted(best, key=lambda i: -best[i][0])
        cosines = self._similarities("recall/unit_similarity", ids, vector, space)
        found = []
        for unit_id in ids:
            unit = units[unit_id]
            value, number, head, total = best[unit_id]
            cosine = cosines.get(unit_id, 0.0)
            since = _day(unit.valid_from)
            found.append(
                Candidate(
                    layer="facts",
                    label="MemoryUnit",
                    id=unit_id,
                    text=unit.text + (f" (since {since})" if since else ""),
                    # an exact subject-and-relation match is relevance in its own right,
                    # whatever the cosine of a long or compound question says
                    relevance=max(self._relevance(cosine), calibrate(value, threshold, 1.0)),
                    strength=min(1.0, value),
                    why=f"evidence path {number}{' head' if head else ''}, "
                    f"match {value:.2f}, cos {cosine:.2f}",
                    details={
                        "path": number,
                        "attribute": round(value, 4),
                        "path_score": round(total, 4),
                        "cosine": round(cosine, 4),
                        "subject": unit.subject,
                        "relation": unit.relation,
                        "object": unit.object,
                        "status": unit.status.value,
                    },
                )
            )
        return found

    def _insights(self, query: str, vector: Vector, space: str) -> list[Candidate]:
        retrieval = self.memory.insights.retrieve_by_vector(
            vector(), space=space, params=self.config.insights, query=query
        )
        if not retrieval.insights:
            return []
        similar = retrieval.queries[0].similarity if retrieval.queries else 0.0
        r = self._relevance(similar)
        strengths = relative([c.score for c in retrieval.insights])
        return [
            Candidate(
                layer="insights",
                label="Insight",
                id=c.id,
                text=c.text,
                relevance=r,
                strength=n,
                why=f"+{c.positive}/-{c.negative} on similar tasks (cos {similar:.2f})",
                details={
                    "utility": c.score,
                    "positive": c.positive,
                    "negative": c.negative,
                    "nearest_task_cosine": round(similar, 4),
                },
            )
            for c, n in zip(retrieval.insights, strengths, strict=True)
        ]

    def _experience(self, query: str, space: str) -> list[Candidate]:
        cfg = self.config
        guidance = self.memory.experience.retrieve(
            query, space=space, k=cfg.experience_k, t=cfg.experience_t
        )
        found = []
        task_strengths = relative([t.score for t in guidance.tasks])
        for task, n in zip(guidance.tasks, task_strengths, strict=True):
            if task.insights:
                lesson = " ".join(task.insights)
            elif task.workflow:
                lesson = "expert workflow: " + "; ".join(task.workflow)
            else:
                continue
            found.append(
                Candidate(
                    layer="experience",
                    label="Task",
                    id=task.id,
                    text=f"{task.text}: {lesson}",
                    relevance=self._relevance(task.score),
                    strength=n,
                    why=f"similar task, cos {task.score:.2f}",
                    details={"similarity": round(task.score, 4), "trajectories": task.trajectories},
                )
            )
        edge_strengths = relative([e.score for e in guidance.edges])
        for edge, n in zip(guidance.edges, edge_strengths, strict=True):
            if not edge.insight:
                continue
            found.append(
                Candidate(
                    layer="experience",
                    label="SIMILAR_TASK",
                    id=f"{edge.source}>{edge.target}",
                    text=edge.insight,
                    relevance=self._relevance(edge.score),
                    strength=n,
                    why=f"workflow shared by similar tasks, {edge.score:.2f}",
                    details={
                        "source": edge.source,
                        "target": edge.target,
                        "edge_similarity": round(edge.similarity, 4),
                    },
                )
            )
        return found


def _logged(write: Callable[[], None]) -> None:
    try:
        write()
    except Exception:  # a lost access count must not break a later recall
        log.warning("a write after recall failed", exc_info=True)


def _timed(fn: Callable[[], list[Candidate]]) -> tuple[list[Candidate], float]:
    started = time.perf_counter()
    found = fn()
    return found, (time.perf_counter() - started) * 1000
