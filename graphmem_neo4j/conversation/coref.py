"""Speaker-aware coreference for turns that open with a pronoun, no model.

In a dialogue a turn like "They were stoked for the dinosaur exhibit!" answers a question
about what the same speaker said one or two turns before ("I took the kids to the museum"):
its "they" is the kids. The turn mentions nothing itself, so neither the graph nor BM25 can
connect it to a question about the kids. A turn whose first sentence opens with a pronoun
therefore also mentions what the same speaker's previous turn in the same session mentioned
(names, titles and things; no dates, no participants), within `MAX_GAP` turns: the
"referent of the last utterance" heuristic of centering theory (Grosz, Joshi & Weinstein
1995, the backward-looking center), restricted to the speaker's own last turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .models import TurnExtraction, TurnInput
from .text import name_key, words

PRONOUNS = frozenset("they them it its she he her him this that those these".split())
MAX_GAP = 2
"""Turns back (in the session) where the speaker's previous turn may be."""
MAX_INHERITED = 4
_KINDS = frozenset({"thing", "name", "title"})


def opens_with_pronoun(text: str) -> bool:
    """The turn's first word (after a greeting-free start) is a pronoun."""
    tokens = words(text)[:1]
    return bool(tokens) and tokens[0] in PRONOUNS


def inherit_referents(
    turns: Sequence[TurnInput], extractions: Sequence[TurnExtraction]
) -> list[TurnExtraction]:
    """The extractions, where a pronoun-led turn also carries up to MAX_INHERITED entities of
    the same speaker's previous turn (same session, at most MAX_GAP turns back). Only turns
    within `turns` are looked at, so a batch boundary can hide a referent."""
    out = list(extractions)
    for i, turn in enumerate(turns):
        if not opens_with_pronoun(turn.text):
            continue
        for j in range(i - 1, max(-1, i - 1 - MAX_GAP), -1):
            previous = turns[j]
            if previous.session != turn.session:
                break
            if previous.speaker != turn.speaker:
                continue
            own = {name_key(e.name) for e in out[i].entities}
            borrowed = [
                e
                for e in extractions[j].entities
                if e.type in _KINDS and name_key(e.name) not in own
            ][:MAX_INHERITED]
            if borrowed:
                out[i] = replace(out[i], entities=out[i].entities + tuple(borrowed))
            break
    return out
