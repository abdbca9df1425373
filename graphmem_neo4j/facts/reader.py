"""Reading the facts layer: the current view, history, dependency chains, and questions
answered through localisation (§3.2). Read-only; FactService exposes these methods."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..deps import Parts
from ..errors import InputError, NotFound
from ..schema import now_ms
from .config import FactConfig
from .keys import category_key, context_key, name_key, parse_time, relation_key, terms
from .localise import Localiser, merge_scores
from .models import FactQuery, MemoryUnit, TempUnit
from .patterns import question_hints
from .results import AskResult, DependencyChain, EvidencePath, FactHit, HistoryEntry, Localisation


class FactReader:
    def __init__(self, parts: Parts, config: FactConfig) -> None:
        self.parts = parts
        self.config = config

    @property
    def localiser(self) -> Localiser:
        return Localiser(self.parts.store, self.config.localise)

    def _space(self, space: str | None) -> str:
        return space if space is not None else self.parts.defaults.space

    def units_by_ids(self, space: str, ids: Sequence[str]) -> dict[str, MemoryUnit]:
        found: dict[str, MemoryUnit] = {}
        size = self.parts.defaults.batch_size
        for start in range(0, len(ids), size):
            rows = self.parts.store.read(
                "facts/units_by_ids", {"space": space, "ids": list(ids[start : start + size])}
            )
            for row in rows:
                unit = MemoryUnit.from_row(row["unit"])
                found[unit.id] = unit
        return found

    def get(self, unit_id: str, *, space: str | None = None) -> MemoryUnit:
        space = self.parts.require_space(self._space(space))
        unit = self.units_by_ids(space, [unit_id]).get(unit_id)
        if unit is None:
            raise NotFound(f"no unit {unit_id!r} in space {space!r}")
        return unit

    def current(
        self,
        subject: str,
        *,
        space: str | None = None,
        relation: str | None = None,
        category: str | None = None,
        context: str | None = None,
        as_of: str | int | None = None,
    ) -> list[MemoryUnit]:
        """The subject's units valid now (active), or valid at `as_of` (ISO-8601 or epoch ms)."""
        space = self.parts.require_space(self._space(space))
        key = self.subject_key(subject)
        rows = self.parts.store.read(
            "facts/current_units",
            {
                "space": space,
                "subject": key,
                "relation": relation_key(relation) if relation else None,
                "category": category_key(category) if category else None,
                "context": context_key(context) if context else None,
                "as_of": _moment(as_of, field_name="as_of"),
            },
        )
        return [MemoryUnit.from_row(r["unit"]) for r in rows]

    def history(
        self, subject: str, *, space: str | None = None, relation: str | None = None
    ) -> list[HistoryEntry]:
        """Every version of the subject's facts, whatever their status, oldest first."""
        space = self.parts.require_space(self._space(space))
        rows = self.parts.store.read(
            "facts/history",
            {
                "space": space,
                "subject": self.subject_key(subject),
                "relation": relation_key(relation) if relation else None,
            },
        )
        return [
            HistoryEntry(MemoryUnit.from_row(r["unit"]), r.get("superseded_by"), r.get("contests"))
            for r in rows
        ]

    def path(self, unit_id: str, *, space: str | None = None, limit: int = 200) -> DependencyChain:
        """The dependency chain of a unit: what supports it and what depends on it."""
        unit = self.get(unit_id, space=space)
        space = self._space(space)
        edges: dict[tuple[str, str], None] = {}
        ups: dict[str, MemoryUnit] = {}
        downs: dict[str, MemoryUnit] = {}
        for query, bucket in (("facts/upstream", ups), ("facts/downstream", downs)):
            for row in self.parts.store.read(
                query, {"space": space, "id": unit_id, "limit": limit}
            ):
                for item in row["units"]:
                    other = MemoryUnit.from_row(item)
                    if other.id != unit_id:
                        bucket.setdefault(other.id, other)
                for a, b in row["edges"]:
                    edges.setdefault((str(a), str(b)), None)
        return DependencyChain(unit, tuple(ups.values()), tuple(downs.values()), tuple(edges))

    @staticmethod
    def subject_key(subject: str) -> str:
        if not isinstance(subject, str) or not name_key(subject):
            raise InputError("needs a subject name", field="subject")
        return name_key(subject)

    # --- asking ----------------------------------------------------------------------------------
    def question_unit(
        self, space: str, query: str | FactQuery
    ) -> tuple[TempUnit, dict[str, float]]:
        """A temporary unit for a question (§3.2) and its category anchors."""
        if isinstance(query, FactQuery):
            return self._structured_unit(space, query)
        if not isinstance(query, str) or not query.strip():
            raise InputError("empty question", field="query")
        return self._text_unit(space, query)

    def _structured_unit(self, space: str, query: FactQuery) -> tuple[TempUnit, dict[str, float]]:
        text = " ".join(x for x in (query.subject, query.relation, query.context) if x)
        category = category_key(query.category) if query.category else None
        temp = TempUnit(
            subjects={self.subject_key(query.subject): 1.0},
            relation_key=relation_key(query.relation) if query.relation else None,
            relation_terms=terms(query.relation or ""),
            category_key=category,
            context_key=context_key(query.context),
            moment=_moment(query.as_of, field_name="as_of") or now_ms(),
            text=text,
            embedding=tuple(self.parts.embedder.embed([text])[0]),
        )
        return temp, {category: 1.0} if category else {}

    def _text_unit(self, space: str, query: str) -> tuple[TempUnit, dict[str, float]]:
        """A question's word n-grams are looked up as Subject, Category and Context names;
        when no subject is named exactly, the subjects of the closest units stand in (vector
        anchors); the words left over are matched against relation names."""
        weight = self.config.vector_anchor_weight
        hints = question_hints(query)
        vector = self.parts.embedder.embed([query])[0]
        named = self.localiser.exact("facts/find_subjects", space, hints.phrases)
        subjects = {
            key: 0.5 if any(key != o and f" {key} " in f" {o} " for o in named) else 1.0
            for key in named
        }
        near_categories: dict[str, float] = {}
        if not subjects:
            near_subjects, near_categories = self.localiser.unit_anchors(space, vector)
            subjects = {k: v * weight for k, v in near_subjects.items()}
        named_categories = self.localiser.exact("facts/find_categories", space, hints.phrases)
        categories = merge_scores(
            {k: v * weight for k, v in near_categories.items()},
            {k: 1.0 for k in named_categories},
        )
        category = next(iter(named_categories), None)
        if category is None and hints.category_hint:
            category = hints.category_hint
            categories.setdefault(category, 0.5)
        context = hints.context
        if context is None:
            found = self.localiser.exact("facts/find_contexts", space, hints.context_phrases)
            context = max(found, key=len) if found else None
        used = terms(" ".join([*named, context or ""]))
        temp = TempUnit(
            subjects=subjects,
            relation_key=None,
            relation_terms=frozenset(t for t in hints.terms if t not in used),
            category_key=category,
            context_key=context,
            moment=now_ms(),
            text=query,
            embedding=tuple(vector),
        )
        return temp, categories

    def localise_question(
        self, query: str | FactQuery, *, space: str | None = None
    ) -> Localisation:
        space = self.parts.require_space(self._space(space))
        self.parts.ensure_embedder_matches()
        temp, categories = self.question_unit(space, query)
        localisation = self.localiser.localise(space, [temp], categories=categories)
        if localisation.micrographs or not isinstance(query, FactQuery):
            return localisation
        # a structured subject with no MicroGraph: try the Subject names close to it
        key = self.subject_key(query.subject)
        near = self.localiser.subject_anchors(
            space, key, self.parts.embedder.embed([query.subject])[0]
        )
        if len(near) == 1:
            return localisation
        return self.localiser.localise(space, [replace(temp, subjects=near)], categories=categories)

    def ask(self, query: str | FactQuery, *, space: str | None = None, k: int = 10) -> AskResult:
        """The best evidence path for a question and its active units; `answer` is the unit
        on it that best matches the question."""
        localisation = self.localise_question(query, space=space)
        best = localisation.best
        text = query if isinstance(query, str) else query.model_dump_json(exclude_none=True)
        return AskResult(
            query=text,
            answer=(
                best.head
                if best and best.score.attribute >= self.config.min_answer_attribute
                else None
            ),
            path=best,
            hits=tuple(rank_hits(localisation.paths, k)),
            stats=localisation.stats,
        )

    def search(
        self, query: str | FactQuery, *, space: str | None = None, k: int = 10
    ) -> list[FactHit]:
        """Ranked active units for a question, best first, with scores (for recall APIs)."""
        return rank_hits(self.localise_question(query, space=space).paths, k)


def rank_hits(paths: Sequence[EvidencePath], k: int) -> list[FactHit]:
    """Units ranked by the best path that holds them: its φ_H as the path's head, 0.9 of it
    as a unit further along (ties keep path order)."""
    best: dict[str, tuple[float, MemoryUnit]] = {}
    for path in paths:
        for unit in path.units:
            score = path.score.total * (1.0 if unit.id == path.head.id else 0.9)
            if unit.id not in best or score > best[unit.id][0]:
                best[unit.id] = (score, unit)
    ranked = sorted(best.values(), key=lambda item: -item[0])[:k]
    return [FactHit(unit, score, rank) for rank, (score, unit) in enumerate(ranked, start=1)]


def _moment(value: str | int | None, *, field_name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    if value.strip().lower() == "now":
        return now_ms()
    try:
        return parse_time(value)
    except ValueError as e:
        raise InputError(str(e), field=field_name) from e
