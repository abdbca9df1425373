"""Evidence recall on LongMemEval (Wu et al., ICLR 2025), with flat baselines in the same run.

    python benchmarks/longmemeval.py --data longmemeval_s_cleaned.json [--limit 50]
    python benchmarks/longmemeval.py --data longmemeval_s_cleaned.json --write-queries q.jsonl

LongMemEval's data is not in this repository (it is published on a model hub, which this
machine cannot reach); bring the file. Each instance is a question over its own haystack of
dated user-assistant sessions. Its haystack is ingested (offline extractor, no LLM) into its
own space of a private embedded FalkorDB, exactly as `graphmem ingest FILE --format
longmemeval` does, and the question is searched (hybrid, k = --k). Two figures per question:

- turn recall@k: |turns marked `has_answer` ∩ top k| / |turns marked `has_answer`|;
- session recall@k: |answer_session_ids ∩ sessions of the top k| / |answer_session_ids|.

Abstention questions (`question_id` ending in `_abs`) have no evidence and are left out, and
a question without `has_answer` turns counts for the session figure only. Figures are given
overall with a 95% bootstrap interval over questions, and per `question_type`. The baselines
rank the same haystack's "role: content" turns with BM25 and with the run's embedder's cosine
(`--no-baselines` skips them).

--write-queries FILE writes the questions as a `graphmem search --batch` file (id, query,
space = question_id) and exits, for measuring through the CLI after `graphmem ingest`.
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
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine_parity import start_server  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402
from locomo import BM25, mean_interval, ranked, tokens  # noqa: E402

from graphmem_neo4j.conversation.models import TurnInput  # noqa: E402
from graphmem_neo4j.conversation.readers import read_longmemeval  # noqa: E402
from graphmem_neo4j.model_files import query_prefix  # noqa: E402


def questions(path: Path) -> dict[str, dict[str, Any]]:
    """question_id → the instance's question, type and evidence, for every instance that has
    evidence (abstention questions left out)."""
    out: dict[str, dict[str, Any]] = {}
    for record in json.loads(path.read_text(encoding="utf-8")):
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


def baselines(
    embedder: Any, turns: Sequence[TurnInput], question: dict[str, Any], k: int
) -> dict[str, dict[str, float]]:
    """Flat BM25 and dense cosine over the haystack's "role: content" turns."""
    import numpy as np

    ids = [t.turn_id for t in turns]
    texts = [f"{t.speaker}: {t.text}" for t in turns]
    lexical = ranked(BM25([tokens(x) for x in texts]).scores(tokens(question["question"])), ids)
    matrix = np.asarray(embedder.embed(texts), dtype=np.float32)
    query = np.asarray(
        embedder.embed([query_prefix(embedder.name) + question["question"]])[0], dtype=np.float32
    )
    dense = ranked(list(matrix @ query), ids)
    return {
        "baseline bm25": scores(lexical, question, k),
        "baseline dense": scores(dense, question, k),
    }


def write_queries(path: Path, asked: dict[str, dict[str, Any]]) -> None:
    lines = [
        json.dumps({"id": qid, "query": q["question"], "space": qid}) for qid, q in asked.items()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, required=True, help="LongMemEval's JSON file")
    parser.add_argument("--limit", type=int, default=0, help="the first N instances (0: all)")
    parser.add_argument("-k", "--k", type=int, default=10)
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument(
        "--embedder", default="minilm", choices=("minilm", "hash"), help="minilm (default) or hash"
    )
    parser.add_argument("--write-queries", type=Path, help="write a search --batch file and exit")
    add_json_out(parser)
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"no such file: {args.data}", file=sys.stderr)
        return 2
    asked = questions(args.data)
    groups = [(space, turns) for space, turns in read_longmemeval(args.data) if space in asked]
    if args.limit > 0:
        groups = groups[: args.limit]
    if args.write_queries is not None:
        write_queries(args.write_queries, {space: asked[space] for space, _ in groups})
        print(f"wrote {len(groups)} questions to {args.write_queries}")
        return 0

    from graphmem_neo4j.embedder import HashEmbedder, NumpyEmbedder
    from graphmem_neo4j.memory import GraphMemory

    embedder: Any = NumpyEmbedder() if args.embedder == "minilm" else HashEmbedder()
    embedder.embed(["warm up"])
    table = Table()
    ingested, ingest_seconds = 0, 0.0
    with tempfile.TemporaryDirectory(prefix="graphmem-longmemeval-") as home:
        settings, stop = start_server("falkordb", Path(home))
        try:
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                for number, (space, turns) in enumerate(groups, 1):
                    question = asked[space]
                    started = time.perf_counter()
                    memory.conversation.add_turns(turns, space=space, forget_every=0)
                    ingest_seconds += time.perf_counter() - started
                    ingested += len(turns)
                    hits = memory.conversation.search(
                        question["question"], space=space, k=args.k, touch=False
                    ).hits
                    table.add(
                        "hybrid",
                        question["type"],
                        scores([h.turn_id for h in hits], question, args.k),
                    )
                    if not args.no_baselines:
                        for system, values in baselines(embedder, turns, question, args.k).items():
                            table.add(system, question["type"], values)
                    print(f"[{number}/{len(groups)}] {space}: {len(turns)} turns", flush=True)
        finally:
            stop()
    summary = table.print(args.k)
    rate = ingested / ingest_seconds if ingest_seconds else 0.0
    print(f"\ningest: {ingested} turns in {ingest_seconds:.1f}s = {rate:.1f} turns/s")
    figures = Figures("longmemeval")
    for system, values in summary.items():
        for metric, value in values.items():
            figures.add(f"{system} {metric}", value, "recall")
    figures.add("ingest", rate, "turns/s")
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
