"""Leave-one-conversation-out over the fusion's constants, with one or two embedding models.

    python benchmarks/fusion_cv.py --data ../shared/data/locomo_dev \\
        --second ~/.graphmem/models/bge-small-en-v1.5

Each conversation is ingested once with the default model (offline extractor, private embedded
FalkorDB). Every question is then searched once in hybrid mode with the default constants, and
the candidate lists the fusion receives (BM25, the dense list, the named speakers and time
ranges) are kept. The second model's dense list is the exact cosine of its query vector with
its vectors of the conversation's turns ("Speaker: text", the text the store embeds), the
top `candidates`, the same list an exact scan of a store built with it returns. The fusion
(fusion.fuse, the production code) is then run again on the kept lists for every grid point:

* which model fills the dense slot (raw cosine, or relative: its place between the list's
  last and best entry) and its weight;
* the other model as a second dense channel (relative), at a weight (0: off);
* the share a turn inherits from the turn before it.

The graph rules are off (their defaults), so the store's entities do not enter the ranking and
one ingestion serves every model. Leave-one-conversation-out chooses, per fold, the grid point
with the best mean R@10 on the other conversations and scores it on the held-out one; each
system's held-out R@10 is printed per fold with a 95% bootstrap interval, and the gain of
each system over the first one per fold with a 95% paired-bootstrap interval.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from figures import Figures, add_json_out  # noqa: E402
from locomo import CATEGORIES, free_port, load_questions, mean_interval, paired_interval, recall  # noqa: E402

from graphmem_neo4j.conversation import ingest as ingest_module  # noqa: E402
from graphmem_neo4j.conversation import search as search_module  # noqa: E402
from graphmem_neo4j.conversation.fusion import Candidate, fuse  # noqa: E402
from graphmem_neo4j.conversation.ingest import embedding_text  # noqa: E402
from graphmem_neo4j.conversation.models import FusionWeights, TurnInput  # noqa: E402
from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402
from graphmem_neo4j.model_files import query_prefix  # noqa: E402

Rows = list[tuple[Candidate, float]]
GRID_PREVIOUS = "0.3,0.5,0.7,0.9"
GRID_RAW = "2,3,4,5,6,8"
GRID_RELATIVE = "0.25,0.5,0.75,1,1.5,2"


@dataclass
class Kept:
    """What the fusion received for one question, plus the second model's dense list and the
    concept source's list (which the default fusion does not read; the learned ranker does)."""

    space: str
    category: int
    evidence: list[str]
    inputs: dict[str, Any]
    second: Rows
    concept: Rows = field(default_factory=list)
    question: str = ""


def turn_alone(speaker: str, text: str, previous: tuple[str, str] | None = None) -> str:
    """embedding_text without the previous turn."""
    return embedding_text(speaker, text)


def ingested_texts(turns: Sequence[TurnInput], context: bool = True) -> list[str]:
    """What ingestion embeds for each turn of one call: the turn, then (with `context`) the
    one before it in its session."""
    last: dict[str, TurnInput] = {}
    texts = []
    for t in turns:
        before = last.get(t.session) if context else None
        previous = (before.speaker, before.text) if before is not None else None
        texts.append(embedding_text(t.speaker, t.text, previous))
        last[t.session] = t
    return texts


def flat_dense(
    embedder: Any, candidates: Sequence[Candidate], texts: Sequence[str], queries: Sequence[str]
) -> list[Rows]:
    """Each query's top-100 turns by exact cosine under `embedder` (unit vectors)."""
    matrix = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    prefix = query_prefix(embedder.name)
    qvecs = np.asarray(embedder.embed([prefix + q for q in queries]), dtype=np.float32)
    out = []
    for qv in qvecs:
        sims = matrix @ qv
        top = np.argsort(-sims, kind="stable")[:100]
        out.append([(candidates[i], float(sims[i])) for i in top])
    return out


def relative(rows: Rows) -> Rows:
    """Scores shifted so the list's last entry is 0: the fusion's scaling by the best score
    then gives the relative cosine."""
    floor = min((s for _, s in rows), default=0.0)
    return [(c, s - floor) for c, s in rows]


def run(kept: Kept, system: dict[str, Any]) -> list[str]:
    inputs = dict(kept.inputs)
    base: FusionWeights = inputs.pop("weights")
    first: Rows = inputs.pop("dense")
    primary, other = (first, kept.second) if system["slot"] == "default" else (kept.second, first)
    weights = replace(
        base,
        dense=system["dense"],
        dense_relative=system["relative"],
        previous=system["previous"],
        concept=system["channel"],
    )
    inputs["concept"] = relative(other) if system["channel"] else []
    hits = fuse(**{**inputs, "dense": primary, "weights": weights, "k": 10})
    return [h.turn_id for h in hits]


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def grid(
    slot: str,
    channels: Sequence[float],
    previous: Sequence[float],
    raw: Sequence[float],
    rel: Sequence[float],
) -> list[dict[str, Any]]:
    out = []
    for (weight, is_rel), channel, share in itertools.product(
        [(w, False) for w in raw] + [(w, True) for w in rel], channels, previous
    ):
        out.append(
            {
                "slot": slot,
                "dense": weight,
                "relative": is_rel,
                "channel": channel,
                "previous": share,
            }
        )
    return out


def label(system: dict[str, Any]) -> str:
    kind = "rel" if system["relative"] else "raw"
    return (
        f"{system['slot']} {kind} {system['dense']:g}, other {system['channel']:g}, "
        f"prev {system['previous']:g}"
    )


def loco(
    scores: dict[str, list[float]], kept: Sequence[Kept], spaces: Sequence[str]
) -> tuple[list[float], list[str]]:
    """Per question, the held-out R@10 of the grid point chosen without its conversation."""
    held = [0.0] * len(kept)
    chosen = []
    for space in spaces:
        train = [i for i, k in enumerate(kept) if k.space != space]
        best = max(sorted(scores), key=lambda n: statistics.fmean(scores[n][i] for i in train))
        chosen.append(best)
        for i, k in enumerate(kept):
            if k.space == space:
                held[i] = scores[best][i]
    return held, chosen


def collect(
    groups: Any,
    questions: Any,
    first: Any,
    second: Any,
    *,
    context: bool = True,
) -> list[Kept]:
    """Ingest every conversation with `first`, search every question once in hybrid mode and
    keep what the fusion received, with `second`'s dense list beside it. The concept source
    runs for every question, as the learned ranker runs it; its list is kept apart, so the
    kept inputs are the default fusion's. Without `context` the turn vectors hold the turn
    alone, not the turn before it (for comparison)."""
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings
    from graphmem_neo4j.store.embedded import EmbeddedServer

    recorded: list[dict[str, Any]] = []

    def recording_fuse(**kwargs: Any) -> Any:
        recorded.append(kwargs)
        return fuse(**kwargs)

    probes = search_module.Searcher.probes_for

    def learned_probes(self: Any, query: str, *, learned: bool) -> list[str]:
        """The probes the learned ranker's search embeds (the fusion asked for here has none)."""
        return list(probes(self, query, learned=True))

    setattr(search_module, "fuse", recording_fuse)  # noqa: B010 (a test double)
    setattr(search_module.Searcher, "probes_for", learned_probes)  # noqa: B010
    if not context:
        setattr(ingest_module, "embedding_text", turn_alone)  # noqa: B010
    kept: list[Kept] = []
    with tempfile.TemporaryDirectory(prefix="graphmem-fusion-cv-") as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(
                home=Path(home), embedded_port=server.port, database=f"fcv_{uuid.uuid4().hex[:8]}"
            )
            with GraphMemory(settings, embedder=first) as memory:
                memory.init()
                service = memory.conversation
                # What the fusion receives is recorded: the learned ranker would bypass it.
                service.config = replace(service.config, ranking="fusion")
                for space, turns in groups:
                    t0 = time.perf_counter()
                    service.add_turns(turns, space=space, forget_every=0)
                    seq: dict[str, int] = defaultdict(int)
                    candidates = []
                    for t in turns:
                        candidates.append(
                            Candidate(
                                t.turn_id, t.session, seq[t.session], t.speaker, t.text, t.timestamp
                            )
                        )
                        seq[t.session] += 1
                    qs = questions.get(space, [])
                    texts = ingested_texts(turns, context)
                    seconds = flat_dense(second, candidates, texts, [q["question"] for q in qs])
                    by_id = {c.id: c for c in candidates}
                    for q, rows in zip(qs, seconds, strict=True):
                        recorded.clear()
                        service.search(q["question"], space=space, k=10, mode="hybrid", touch=False)
                        inputs = dict(recorded[-1])
                        concept = list(inputs["concept"])
                        inputs["concept"] = []
                        for c, _ in inputs["dense"]:
                            mine = by_id[c.id]
                            if (mine.session, mine.seq, mine.time) != (c.session, c.seq, c.time):
                                raise SystemExit(f"turn {c.id}: stored position differs")
                        kept.append(
                            Kept(
                                space,
                                q["category"],
                                q["evidence"],
                                inputs,
                                rows,
                                concept,
                                q["question"],
                            )
                        )
                    print(
                        f"{space}: {len(qs)} questions, {time.perf_counter() - t0:.0f}s",
                        file=sys.stderr,
                    )
        finally:
            server.stop()
            setattr(ingest_module, "embedding_text", embedding_text)  # noqa: B010
            setattr(search_module.Searcher, "probes_for", probes)  # noqa: B010
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument("--second", type=Path, required=True, help="the second model directory")
    parser.add_argument("--previous", default=GRID_PREVIOUS)
    parser.add_argument("--channels", default="0,0.5,1,1.5,2")
    parser.add_argument("--raw", default=GRID_RAW, help="dense weights on the raw cosine")
    parser.add_argument(
        "--relative", default=GRID_RELATIVE, help="dense weights on the relative cosine"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        help="keep the searched candidate lists in this file; a later run with the same file "
        "skips ingestion and searching",
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("fusion_cv")

    from graphmem_neo4j.embedder import NumpyEmbedder

    groups = read_locomo(args.data / "locomo_dev.json")
    questions = load_questions(args.data)
    kept: list[Kept]
    if args.cache is not None and args.cache.exists():
        kept = pickle.loads(args.cache.read_bytes())
    else:
        kept = collect(groups, questions, NumpyEmbedder(), NumpyEmbedder(str(args.second)))
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(kept))

    spaces = [s for s, _ in groups]
    previous, channels = floats(args.previous), floats(args.channels)
    raw, rel = floats(args.raw), floats(args.relative)
    families = {
        "default model alone": grid("default", [0.0], previous, raw, rel),
        "second model alone": grid("second", [0.0], previous, raw, rel),
        "both, default in the dense slot": grid("default", channels, previous, raw, rel),
        "both, second in the dense slot": grid("second", channels, previous, raw, rel),
    }
    defaults = {"slot": "default", "dense": 3.0, "relative": False, "channel": 0.0, "previous": 0.7}
    fixed = [recall(run(k, defaults), k.evidence, 10) for k in kept]
    print(
        f"\nthe defaults, all conversations: R@10 {statistics.fmean(fixed):.3f} (n = {len(kept)})"
    )
    held_by: dict[str, list[float]] = {}
    for family, systems in families.items():
        scores = {label(s): [recall(run(k, s), k.evidence, 10) for k in kept] for s in systems}
        held, chosen = loco(scores, kept, spaces)
        held_by[family] = held
        print(f"\n{family} ({len(systems)} grid points), leave-one-conversation-out:")
        for space, name in zip(spaces, chosen, strict=True):
            parts = []
            for cat_label, keep in (("R@10", None), ("multi-hop", 1), ("temporal", 2)):
                values = [
                    h
                    for h, k in zip(held, kept, strict=True)
                    if k.space == space and (keep is None or k.category == keep)
                ]
                m, low, high = mean_interval(values)
                parts.append(f"{cat_label} {m:.3f} [{low:.3f}, {high:.3f}]")
            print(f"  {space}: chose {name}; " + ", ".join(parts))
        per_cat = {
            c: statistics.fmean(h for h, k in zip(held, kept, strict=True) if k.category == c)
            for c in CATEGORIES
        }
        cats = ", ".join(f"{CATEGORIES[c]} {v:.3f}" for c, v in per_cat.items())
        print(f"  held out, all: R@10 {statistics.fmean(held):.3f}; {cats}")
        figures.add(f"{family}: held-out R@10", statistics.fmean(held))
        for c, v in per_cat.items():
            figures.add(f"{family}: held-out {CATEGORIES[c]} R@10", v)
        best = max(sorted(scores), key=lambda n: statistics.fmean(scores[n]))
        print(f"  chosen on all conversations: {best} (R@10 {statistics.fmean(scores[best]):.3f})")
    base_name = "default model alone"
    base = held_by[base_name]
    print(f"\ngain over '{base_name}' held out, per fold (95% paired-bootstrap interval)")
    for family, held in held_by.items():
        if family == base_name:
            continue
        parts = []
        for space in spaces:
            idx = [i for i, k in enumerate(kept) if k.space == space]
            m, low, high = paired_interval([held[i] for i in idx], [base[i] for i in idx])
            parts.append(f"{space} {m:+.3f} [{low:+.3f}, {high:+.3f}]")
        m, low, high = paired_interval(held, base)
        multi = [i for i, k in enumerate(kept) if k.category == 1]
        mm, ml, mh = paired_interval([held[i] for i in multi], [base[i] for i in multi])
        print(
            f"  {family}: "
            + "; ".join(parts)
            + f"; all {m:+.3f} [{low:+.3f}, {high:+.3f}]"
            + f"; multi-hop {mm:+.3f} [{ml:+.3f}, {mh:+.3f}]"
        )
        figures.add(f"{family}: held-out gain, 95% interval low", low)
        figures.add(f"{family}: held-out gain, 95% interval high", high)
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
