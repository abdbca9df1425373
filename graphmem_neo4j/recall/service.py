"""Recall: the best context for an agent's next step, from all four layers, within a token
budget.

    gather candidates from each layer in parallel (the query is embedded once: the layers
    share the vector through the embedder's memo):
        conversation  hybrid turn search (cosine of each turn fetched for the common scale)
        facts         active units on the evidence paths of HiGram localisation (§3.2)
        insights      utility-ranked insights of similar past tasks (EvoGraph-Mem §3.3)
        experience    similar tasks with their lessons, and shared workflows (EMG §4.3)
    → one score scale (rank.score) → de-duplicate → pack greedily into the budget
    → touch the packed turns, count the tokens per layer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..after_writes import AfterWrites
from ..deps import Layers, Parts
from ..errors import InputError
from ..tokens import LAYERS, Layer
from .cache import QueryMemo
from .gather import Gatherers
from .models import Candidate, LayerReport, RecallConfig, RecallResult
from .rank import deduplicate, pack, score

log = logging.getLogger(__name__)
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


class RecallService:
    def __init__(self, parts: Parts, layers: Layers, config: RecallConfig | None = None) -> None:
        self.parts = parts
        self.layers = layers
        self.config = config or RecallConfig()
        self._pool: ThreadPoolExecutor | None = None
        self._writes = AfterWrites("recall")
        self._lock = threading.Lock()

    def close(self) -> None:
        self._writes.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        self._pool = None

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphmem-recall")
            return self._pool

    def after(self, write: Callable[[], None]) -> None:
        """Run a write that no answer depends on (access counts, token counters) after the
        recall has returned, in order, on one background thread; `settle` waits for them."""
        self._writes.submit(write)

    def settle(self) -> None:
        """Wait until the writes of earlier recalls are done (their access counts are the
        conversation layer's)."""
        self._writes.settle()
        self.layers.conversation.settle()

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
        # The experience layer's vocabulary is read while the space is checked, not after.
        vocabulary = (
            self._executor().submit(self.layers.experience.vocabulary, space)
            if "experience" in wanted
            else None
        )
        with self.parts.space_checked(space):
            return self._recall(query, space, budget_tokens, wanted, vocabulary)

    def _recall(
        self,
        query: str,
        space: str,
        budget_tokens: int,
        wanted: tuple[Layer, ...],
        vocabulary_read: Future[list[str]] | None,
    ) -> RecallResult:
        parts, services = self.parts, self.layers
        parts.ensure_embedder_matches()
        started = time.perf_counter()

        # The query is embedded on this thread while the layers run, then in a second model
        # call the conversation layer's concept probes and the experience layer's two texts
        # (the task and its skeleton); a layer that needs a vector waits for it (the
        # embedder's memo), so the searches that need none (full-text, the entity graph, the
        # facts' name lookups) overlap with the model, and those that need only the query's
        # vector with the second call.
        texts, later = [query], []
        if "conversation" in wanted:
            searched, *probes = services.conversation.query_texts(query)
            texts, later = [query, searched], probes
        vocabulary: list[str] = []
        if vocabulary_read is not None:
            vocabulary = vocabulary_read.result()
            later += services.experience.query_texts(query, vocabulary=vocabulary)
        memo = parts.embedder
        embed_now = memo.reserve(texts) if isinstance(memo, QueryMemo) else None
        embed_later = memo.reserve(later) if isinstance(memo, QueryMemo) else None

        def embedded() -> list[float]:
            return parts.embedder.embed([query])[0]

        gather = Gatherers(parts, services, self.config)
        gatherers: dict[Layer, Callable[[], list[Candidate]]] = {
            "conversation": lambda: gather.conversation(query, embedded, space, budget_tokens),
            "facts": lambda: gather.facts(query, embedded, space),
            "insights": lambda: gather.insights(query, embedded, space),
            "experience": lambda: gather.experience(query, space, vocabulary),
        }
        try:
            futures = {layer: self._executor().submit(_timed, gatherers[layer]) for layer in wanted}
        finally:  # always: a reserved text nobody embeds blocks its askers
            try:
                if embed_now is not None:
                    embed_now()
            finally:
                if embed_later is not None:
                    embed_later()
        found = {layer: future.result() for layer, future in futures.items()}
        candidates = [c for layer in wanted for c in found[layer][0]]
        kept, duplicates = deduplicate(
            score(candidates, self.config), self.config.duplicate_overlap
        )
        packing = pack(kept, budget=budget_tokens, config=self.config)
        turns = [i.id for i in packing.items if i.layer == "conversation"]
        if turns and self.config.touch:
            clock = gather.clock  # read by the search: the access write reads nothing
            services.conversation.touch(turns, space=space, clock=clock, later=True)
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


def _timed(fn: Callable[[], list[Candidate]]) -> tuple[list[Candidate], float]:
    started = time.perf_counter()
    found = fn()
    return found, (time.perf_counter() - started) * 1000
