"""Hybrid ranking: how the candidate sources are combined into one list of turns.

The paper found its entity graph alone loses to flat vector retrieval because decomposing a
turn into entities drops the turn's surface form. So the turns stay the unit of retrieval and
every source scores turns:

* lexical: BM25 over the turn text (rare words decide: names of things, places, titles);
* dense: cosine of the turn's embedding with the query's (paraphrase);
* graph: turns mentioning the query's entities, or entities one RELATES edge away from them
  (links across sessions that share no words with the query);
* spread: turns sharing specific entities with the best turns of a first ranking of the other
  sources (spreading activation over Turn–MENTIONS–Entity): the second hop of a question
  whose evidence sits in several sessions, found through what the first hop mentions;
* concept: turns mentioning entities whose names are close in embedding space to the query's
  words: a category word ("instruments") reaches its instances ("clarinet") in turns that
  share no word with the question and whose whole-turn embedding is dominated by other words.

The scores are combined linearly rather than by reciprocal rank: rank fusion throws away how
far ahead the best lexical match is, which is what matters for questions naming a rare word.
Then three pieces of conversational context:

* speaker: a question that names a participant is most often about what that person said;
* time: a question naming a date favours the turns said on it; a question asking *when*
  favours the turns that name a time (they mention a date entity), since its answer must be
  stated somewhere;
* neighbours: in a dialogue the answer follows its question, so a turn inherits part of the
  score of the turn before it (and a little of the one after).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import median

from .models import FusionWeights, SearchHit
from .text import TimeRange, name_key, words


@dataclass(frozen=True)
class Candidate:
    id: str
    session: str
    seq: int
    speaker: str
    text: str
    time: int | None = None

    @staticmethod
    def from_row(row: Mapping[str, object]) -> Candidate:
        time = row.get("time")
        seq = row.get("seq")
        return Candidate(
            id=str(row["id"]),
            session=str(row["session"]),
            seq=int(seq) if isinstance(seq, (int, float)) else 0,
            speaker=str(row.get("speaker") or ""),
            text=str(row.get("text") or ""),
            time=int(time) if isinstance(time, (int, float)) else None,
        )


@dataclass
class Scored:
    candidate: Candidate
    lexical: float = 0.0
    dense: float | None = None
    graph: float = 0.0
    spread: float = 0.0
    concept: float = 0.0
    via: set[str] = field(default_factory=set)


def named_speakers(query: str, speakers: Iterable[str]) -> set[str]:
    """Participants the query names, by full name or by any word of it ("Maya" for "Maya
    Lopez")."""
    query_words = set(words(query))
    named = set()
    for speaker in speakers:
        parts = [w for w in words(speaker) if len(w) > 1]
        if parts and (" ".join(parts) in " ".join(words(query)) or query_words & set(parts)):
            named.add(speaker)
    return named


def speaker_words(speakers: Iterable[str]) -> set[str]:
    return {w for s in speakers for w in words(s) if len(w) > 1}


def query_entity_keys(
    query: str, extracted_names: Iterable[str], terms: Iterable[str], speakers: Iterable[str]
) -> list[str]:
    """Name keys the graph source looks up: the query's extracted names and phrases plus its
    single content words; participants are left to the speaker signal."""
    skip = {name_key(s) for s in speakers} | speaker_words(speakers)
    keys: dict[str, None] = {}
    for name in list(extracted_names) + list(terms):
        key = name_key(name)
        if key and key not in skip:
            keys.setdefault(key, None)
    return list(keys)


def concept_weights(
    per_probe: Mapping[str, Sequence[Mapping[str, object]]], participants: Iterable[str]
) -> dict[str, float]:
    """Entity id → its best cosine with any probe (a query word or the whole query), for the
    concept source. People and dates are left out: a participant's name is the speaker
    signal's, a date the time signal's, and either would reach every turn of a person."""
    skip = set(participants)
    weight: dict[str, float] = {}
    for hits in per_probe.values():
        for hit in hits:
            if hit.get("type") in ("person", "date") or name_key(str(hit.get("name"))) in skip:
                continue
            eid = str(hit["id"])
            similarity = hit.get("similarity")
            value = float(similarity) if isinstance(similarity, (int, float)) else 0.0
            if value > 0:
                weight[eid] = max(weight.get(eid, 0.0), value)
    return weight


def _in_ranges(time: int | None, ranges: Sequence[TimeRange]) -> bool:
    return time is not None and any(r.contains(time) for r in ranges)


def fuse(
    *,
    lexical: Sequence[tuple[Candidate, float]],
    dense: Sequence[tuple[Candidate, float]],
    graph: Sequence[tuple[Candidate, float]],
    weights: FusionWeights,
    speakers: Iterable[str] = (),
    ranges: Sequence[TimeRange] = (),
    k: int = 10,
    spread: Sequence[tuple[Candidate, float]] = (),
    diversity: float = 0.0,
    concept: Sequence[tuple[Candidate, float]] = (),
    dated: Collection[str] = (),
) -> list[SearchHit]:
    """Rank the union of the candidate lists; see the module docstring for the reasoning."""
    pool: dict[str, Scored] = {}

    def entry(c: Candidate) -> Scored:
        if c.id not in pool:
            pool[c.id] = Scored(c)
        return pool[c.id]

    def add_scaled(rows: Sequence[tuple[Candidate, float]], source: str) -> None:
        """A source's positive scores over its best one."""
        best = max((s for _, s in rows), default=0.0)
        for c, s in rows:
            if best > 0 and s > 0:
                e = entry(c)
                setattr(e, source, s / best)
                e.via.add("fulltext" if source == "lexical" else source)

    add_scaled(lexical, "lexical")
    for c, s in dense:
        e = entry(c)
        e.dense = s
        e.via.add("vector")
    add_scaled(graph, "graph")
    add_scaled(spread, "spread")
    add_scaled(concept, "concept")
    if not pool:
        return []
    # A turn outside the dense list is at most as similar as the list's last entry.
    floor = min((s for _, s in dense), default=0.0)
    top = max((s for _, s in dense), default=0.0)
    # Relative dense: the cosine's place between the list's last and best entry, in [0, 1],
    # the same on every model's cosine scale (each model spreads its cosines differently).
    span = top - floor if weights.dense_relative and top > floor else 0.0
    named = set(speakers)
    base: dict[str, float] = {}
    for tid, e in pool.items():
        cosine = e.dense if e.dense is not None else floor
        if span:
            cosine = (cosine - floor) / span
        score = (
            weights.lexical * e.lexical
            + weights.dense * cosine
            + weights.graph * e.graph
            + weights.spread * e.spread
            + weights.concept * e.concept
        )
        if named and e.candidate.speaker in named:
            score *= 1.0 + weights.speaker
        if ranges and _in_ranges(e.candidate.time, ranges):
            score += weights.time
        if tid in dated:
            score += weights.dated
        base[tid] = score
    # Neighbours: only what a neighbour scores above the typical candidate is inherited.
    baseline = median(base.values())
    position = {(e.candidate.session, e.candidate.seq): tid for tid, e in pool.items()}
    final: dict[str, float] = {}
    for tid, e in pool.items():
        score = base[tid]
        c = e.candidate
        prev_id = position.get((c.session, c.seq - 1))
        next_id = position.get((c.session, c.seq + 1))
        bonus = 0.0
        if prev_id is not None:
            bonus += weights.previous * max(0.0, base[prev_id] - baseline)
        if next_id is not None:
            bonus += weights.following * max(0.0, base[next_id] - baseline)
        if bonus > 0:
            e.via.add("context")
        final[tid] = score + bonus
    order = diversified(
        sorted(pool, key=lambda tid: (-final[tid], tid)),
        final,
        {tid: e.candidate.session for tid, e in pool.items()},
        diversity,
        k,
    )
    return [
        SearchHit(
            turn_id=tid,
            session=pool[tid].candidate.session,
            speaker=pool[tid].candidate.speaker,
            text=pool[tid].candidate.text,
            score=final[tid],
            via=tuple(sorted(pool[tid].via)),
            time=pool[tid].candidate.time,
            seq=pool[tid].candidate.seq,
        )
        for tid in order
    ]


def diversified(
    order: Sequence[str],
    score: Mapping[str, float],
    session: Mapping[str, str],
    diversity: float,
    k: int,
) -> list[str]:
    """The best k of `order` (sorted by `score`, descending), where a turn's score is multiplied
    by (1 − diversity) for every turn of its session already taken: a greedy maximal marginal
    relevance (Carbonell & Goldstein 1998) with the session as the redundancy measure. Scores
    only fall, so a candidate past the k-th of the plain ranking by more than the penalty
    can never win, and the greedy pass stops early."""
    if diversity <= 0 or not order:
        return list(order[:k])
    keep = 1.0 - diversity
    taken: list[str] = []
    per_session: dict[str, int] = {}
    remaining = list(order)
    while remaining and len(taken) < k:
        best_i, best = 0, float("-inf")
        for i, tid in enumerate(remaining):
            raw = score[tid]
            if 0 <= raw <= best:
                break  # sorted: no later turn can beat the best adjusted score
            adjusted = raw * keep ** per_session.get(session[tid], 0)
            if adjusted > best:
                best_i, best = i, adjusted
        tid = remaining.pop(best_i)
        taken.append(tid)
        per_session[session[tid]] = per_session.get(session[tid], 0) + 1
    return taken


def single_source(rows: Sequence[tuple[Candidate, float]], via: str, k: int) -> list[SearchHit]:
    """A ranked list from one source alone (the `vector` and `fulltext` modes)."""
    ranked = sorted(rows, key=lambda pair: (-pair[1], pair[0].id))[:k]
    return [
        SearchHit(
            turn_id=c.id,
            session=c.session,
            speaker=c.speaker,
            text=c.text,
            score=s,
            via=(via,),
            time=c.time,
            seq=c.seq,
        )
        for c, s in ranked
    ]


def rrf(rankings: Sequence[Sequence[str]], k: int = 60) -> list[str]:
    """Reciprocal rank fusion (Cormack et al. 2009): Σ 1 / (k + rank). Used by the benchmark's
    flat fusion baseline."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda item: (-scores[item], item))
