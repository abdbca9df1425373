"""Does recall's packed context hold the evidence? LoCoMo dev, recall vs conversation search.

    python benchmarks/recall_locomo.py --data ../shared/data/locomo_dev [--budget 2000]

Each conversation is ingested into its own space (offline extractor, no LLM); facts are read
from its turns with the chat-log offline patterns (first person as the speaker), so recall's
context is contested by two layers, as in real use. Then, for every question with evidence,
in the same run:

  baseline  conversation search alone, hybrid mode, top k = 10 (--k)
  recall    GraphMemory.recall(question, budget_tokens=2000): every layer, packed
  (with --dense-share β…, recall again with other shares of an item's own relevance in its
  score; not timed)

and counts the questions whose evidence turns are ALL in the top 10 / in the context (the
target: recall ≥ baseline), the mean evidence recall |evidence ∩ retrieved| / |evidence|,
per category, plus context sizes and the latency of both (each embeds its question: the query
memo is emptied before every timed call).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from figures import Figures, add_json_out

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def forget_query_vectors(memory: Any) -> None:
    """Empty GraphMemory's query memo, so each timed call embeds its question itself (search
    and recall ask the same question; the second would find the first one's vector)."""
    memory.embedder.clear()


def load_questions(data: Path) -> dict[str, list[dict[str, Any]]]:
    questions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in (data / "qa.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("evidence"):
            questions[row["sample_id"]].append(row)
    return questions


class Tally:
    def __init__(self) -> None:
        self.full: dict[str, list[bool]] = defaultdict(list)
        self.share: dict[str, list[float]] = defaultdict(list)

    def add(self, system: str, category: int, found: set[str], evidence: Sequence[str]) -> None:
        wanted = set(evidence)
        got = len(wanted & found)
        for key in (system, f"{system}/{category}"):
            self.full[key].append(got == len(wanted))
            self.share[key].append(got / len(wanted))

    def row(self, system: str) -> str:
        full = self.full[system]
        cells = [f"{sum(full):>5d}/{len(full):<4d}", f"{statistics.mean(self.share[system]):.3f}"]
        for category in CATEGORIES:
            shares = self.share.get(f"{system}/{category}")
            cells.append(f"{statistics.mean(shares):.3f}" if shares else "  -  ")
        return f"{system:<22}" + "  ".join(f"{c:>11}" for c in cells)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument("--budget", type=int, nargs="+", default=[2000])
    parser.add_argument("-k", type=int, default=10, help="baseline search depth")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--no-facts", action="store_true", help="conversation layer only")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--dense-share",
        type=float,
        nargs="+",
        default=[],
        metavar="BETA",
        help="also score recall with these β (RecallConfig.dense_share; the default is 0.15)",
    )
    parser.add_argument(
        "--ranking",
        choices=["auto", "learned", "fusion"],
        default="auto",
        help="how hybrid search orders its candidates (ConversationConfig.ranking)",
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("recall_locomo")

    from graphmem_neo4j.chatlog import offline_facts
    from graphmem_neo4j.conversation.readers import read_locomo
    from graphmem_neo4j.embedder import HashEmbedder, SentenceTransformerEmbedder
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.recall import RecallService
    from graphmem_neo4j.recall.models import RecallConfig
    from graphmem_neo4j.settings import Settings
    from graphmem_neo4j.store.embedded import EmbeddedServer

    source = args.data / "locomo_dev.json"
    if not source.exists():
        print(f"no {source}: pass --data", file=sys.stderr)
        return 2
    groups = read_locomo(source)
    questions = load_questions(args.data)
    embedder: Any = HashEmbedder() if args.embedder == "hash" else SentenceTransformerEmbedder()
    embedder.embed(["warm up"])  # model load is not part of any figure

    tally = Tally()
    latency: dict[str, list[float]] = defaultdict(list)
    tokens: dict[int, list[int]] = defaultdict(list)
    turns_in_context: dict[int, list[int]] = defaultdict(list)
    facts_in_context: dict[int, list[int]] = defaultdict(list)
    facts_stored = 0
    with tempfile.TemporaryDirectory(prefix="graphmem-recall-locomo-") as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(
                home=Path(home), embedded_port=server.port, database=f"rl_{uuid.uuid4().hex[:8]}"
            )
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                service = memory.conversation
                service.config = replace(service.config, ranking=args.ranking)
                variants = {
                    f"recall {budget} β={beta}": (
                        budget,
                        RecallService(
                            memory.parts, memory, RecallConfig(dense_share=beta, touch=False)
                        ),
                    )
                    for beta in args.dense_share
                    for budget in args.budget
                }
                for space, turns in groups:
                    started = time.perf_counter()
                    memory.conversation.add_turns(turns, space=space, forget_every=0)
                    facts = [] if args.no_facts else offline_facts(turns)
                    if facts:
                        memory.add_facts(facts, space=space)
                        facts_stored += len(facts)
                    print(
                        f"ingested {space}: {len(turns)} turns, {len(facts)} facts in "
                        f"{time.perf_counter() - started:.0f}s",
                        file=sys.stderr,
                    )
                    for q in questions.get(space, []):
                        forget_query_vectors(memory)
                        t0 = time.perf_counter()
                        hits = memory.conversation.search(
                            q["question"], space=space, k=args.k, touch=False
                        ).hits
                        latency["search"].append(time.perf_counter() - t0)
                        found = {h.turn_id for h in hits}
                        tally.add(f"search k={args.k}", q["category"], found, q["evidence"])
                        for budget in args.budget:
                            forget_query_vectors(memory)
                            t0 = time.perf_counter()
                            result = memory.recall(q["question"], space=space, budget_tokens=budget)
                            latency[f"recall {budget}"].append(time.perf_counter() - t0)
                            turn_ids = {i.id for i in result.items if i.layer == "conversation"}
                            tally.add(f"recall {budget}", q["category"], turn_ids, q["evidence"])
                            tokens[budget].append(result.tokens_used)
                            turns_in_context[budget].append(len(turn_ids))
                            facts_in_context[budget].append(
                                sum(1 for i in result.items if i.layer == "facts")
                            )
                        for name, (budget, other) in variants.items():
                            result = other.recall(q["question"], space=space, budget_tokens=budget)
                            turn_ids = {i.id for i in result.items if i.layer == "conversation"}
                            tally.add(name, q["category"], turn_ids, q["evidence"])
                for _, service in variants.values():
                    service.close()
        finally:
            server.stop()

    systems = [f"search k={args.k}", *(f"recall {b}" for b in args.budget), *variants]
    header = ["all evidence", "mean recall", *CATEGORIES.values()]
    print(f"\n{'system':<22}" + "  ".join(f"{h:>11}" for h in header))
    for system in systems:
        print(tally.row(system))
    n = len(tally.full[systems[0]])
    for system in systems:
        figures.add(
            f"{system}: questions with all evidence in the context", sum(tally.full[system])
        )
        figures.add(f"{system}: mean evidence recall", statistics.mean(tally.share[system]))
    print(f"\nquestions with evidence: {n}; facts stored from the turns: {facts_stored}")
    for budget in args.budget:
        print(
            f"recall {budget}: context {statistics.mean(tokens[budget]):.0f} tokens on average "
            f"(max {max(tokens[budget])}), {statistics.mean(turns_in_context[budget]):.1f} turns "
            f"and {statistics.mean(facts_in_context[budget]):.1f} facts per context"
        )
    for name, values in latency.items():
        print(
            f"{name:<12} p50 {percentile(values, 0.5) * 1000:7.1f} ms   "
            f"p95 {percentile(values, 0.95) * 1000:7.1f} ms"
        )
        figures.add(f"{name} p95", percentile(values, 0.95) * 1000, "ms")
    figures.add("questions with evidence", n)
    figures.write(args.json_out)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    system: {
                        "all_evidence": sum(tally.full[system]),
                        "mean_recall": statistics.mean(tally.share[system]),
                    }
                    for system in systems
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
