"""Recall's pure logic: one score scale across layers, de-duplication, and packing into a
token budget. No database; unit tests reach every function here."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..facts.keys import terms as stems
from ..fulltext import terms
from .models import (
    SECTION_TITLES,
    Candidate,
    Packing,
    RecallConfig,
    RecallItem,
    Scored,
)

MIN_DUPLICATE_WORDS = 3
"""Texts with fewer content words than this are never called duplicates (too little to tell)."""
_TIE = {"facts": 0, "insights": 1, "experience": 2, "conversation": 3}
"""On equal scores the denser layer goes first: a current fact says in one line what turns
say in several."""


def calibrate(cosine: float, floor: float, full: float) -> float:
    """Cosine → relevance r ∈ [0, 1]: 0 at or below `floor`, 1 at or above `full`, linear in
    between. One embedding model embeds every layer, so its cosines are one scale; the
    calibration only maps the range where it separates noise from a match onto [0, 1]."""
    if full <= floor:
        raise ValueError("the full-relevance cosine must be above the floor")
    return min(1.0, max(0.0, (cosine - floor) / (full - floor)))


class Coverage:
    """The share of a query's content words (stemmed) that a text holds: lexical relevance on
    the same [0, 1] scale, for matches a sentence embedding misses (a rare name, a date).
    Words in `ignore` (the participants' names) do not count. The query is read once."""

    def __init__(self, query: str, *, ignore: Iterable[str] = ()) -> None:
        self.wanted = stems(query) - stems(" ".join(ignore))

    def __call__(self, text: str) -> float:
        if not self.wanted:
            return 0.0
        return len(self.wanted & stems(text)) / len(self.wanted)


def relative(values: Sequence[float]) -> list[float]:
    """Each value divided by the largest (negative values count as 0): a layer's own scores
    as n ∈ [0, 1]."""
    best = max((v for v in values), default=0.0)
    if best <= 0:
        return [0.0 for _ in values]
    return [max(0.0, v) / best for v in values]


def score(candidates: Iterable[Candidate], config: RecallConfig) -> list[Scored]:
    """s = w_L · (β·r + (1 − β)·c_L·n), c_L = the best r of the candidate's layer; best
    first (ties: facts, insights, experience, conversation, then by id: deterministic)."""
    items = list(candidates)
    confidence: dict[str, float] = {}
    for c in items:
        confidence[c.layer] = max(confidence.get(c.layer, 0.0), c.relevance)
    beta = config.dense_share
    scored = [
        Scored(
            c,
            config.weights.get(c.layer, 1.0)
            * (beta * c.relevance + (1 - beta) * confidence[c.layer] * c.strength),
        )
        for c in items
    ]
    scored.sort(key=lambda s: (-s.score, _TIE.get(s.candidate.layer, 9), s.candidate.id))
    return scored


def _overlap(a: frozenset[str], b: frozenset[str], shared: int) -> float:
    small = min(len(a), len(b))
    if small < MIN_DUPLICATE_WORDS:
        return 0.0
    return shared / small


def deduplicate(scored: Sequence[Scored], overlap: float) -> tuple[list[Scored], int]:
    """Drop repeats, keeping the best-scored copy: the same node offered twice, or texts whose
    content words overlap by ≥ `overlap` (> 0) of the smaller set (an insight stored by two
    layers, a fact restated in another task's lessons). The kept item lists what it absorbed."""
    if overlap <= 0:
        raise ValueError("the duplicate overlap must be above 0")
    kept: list[Scored] = []
    words: list[frozenset[str]] = []
    index: dict[str, int] = {}
    holders: dict[str, list[int]] = {}  # word → the kept items that have it
    dropped = 0
    for item in scored:
        mine = frozenset(terms(item.candidate.text, limit=400))
        twin = index.get(item.key)
        if twin is None:
            # only kept items sharing a word can overlap; the first (best) one that does wins
            shared = Counter(i for word in mine for i in holders.get(word, ()))
            twin = next(
                (i for i in sorted(shared) if _overlap(mine, words[i], shared[i]) >= overlap),
                None,
            )
        if twin is not None:
            dropped += 1
            if kept[twin].key != item.key:
                kept[twin] = replace(kept[twin], duplicates=(*kept[twin].duplicates, item.key))
            continue
        index[item.key] = len(kept)
        for word in mine:
            holders.setdefault(word, []).append(len(kept))
        kept.append(item)
        words.append(mine)
    return kept, dropped


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed (one context line per item), cut at `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def render_line(item: Scored, limit: int) -> str:
    c = item.candidate
    return f"- [{c.layer} {c.label} {c.id} | {item.score:.2f} | {c.why}] {one_line(c.text, limit)}"


def pack(scored: Sequence[Scored], *, budget: int, config: RecallConfig) -> Packing:
    """Greedy by score: an item goes in when it and (for a layer's first item) its section
    title still fit; smaller items further down may fill what a big one left. Sections are
    ordered by their best item; turns inside theirs by time (a dialogue reads in order),
    the rest by score. With a counter that is not additive the finished text is re-counted
    and the lowest-scored items dropped until it fits."""
    count = config.count_tokens
    title_cost = {layer: count(title) for layer, title in SECTION_TITLES.items()}
    chosen: list[tuple[Scored, str, int]] = []
    used: dict[str, int] = {}
    total = below = over = 0
    for item in scored:
        if item.score < config.min_score:
            below += 1
            continue
        line = render_line(item, config.max_item_chars)
        cost = count(line)
        layer = item.candidate.layer
        extra = 0 if layer in used else title_cost[layer]
        if total + cost + extra > budget:
            over += 1
            continue
        chosen.append((item, line, cost))
        used[layer] = used.get(layer, title_cost[layer]) + cost
        total += cost + extra
    while chosen:
        context = _render(chosen)
        if count(context) <= budget:
            break
        item, _, cost = chosen.pop()  # the lowest-scored
        over += 1
        layer = item.candidate.layer
        used[layer] -= cost
        if not any(c[0].candidate.layer == layer for c in chosen):
            del used[layer]
    else:
        context = ""
    items = tuple(
        RecallItem(
            rank=rank,
            layer=item.candidate.layer,
            label=item.candidate.label,
            id=item.candidate.id,
            text=item.candidate.text,
            score=item.score,
            relevance=item.candidate.relevance,
            strength=item.candidate.strength,
            why=item.candidate.why,
            tokens=cost,
            line=line,
            duplicates=item.duplicates,
            details=item.candidate.details,
        )
        for rank, (item, line, cost) in enumerate(chosen, start=1)
    )
    return Packing(items, context, used, over, below)


def _render(chosen: Sequence[tuple[Scored, str, int]]) -> str:
    sections: dict[str, list[tuple[Scored, str]]] = {}
    for item, line, _ in chosen:  # best first, so sections come in order of their best item
        sections.setdefault(item.candidate.layer, []).append((item, line))
    blocks = []
    for layer, entries in sections.items():
        if all(e[0].candidate.order for e in entries):
            entries = sorted(entries, key=lambda e: e[0].candidate.order)
        blocks.append("\n".join([SECTION_TITLES[layer], *(line for _, line in entries)]))
    return "\n\n".join(blocks)
