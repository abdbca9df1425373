"""The bundled small model (SmolLM2-135M-Instruct on llama.cpp) against the offline paths, on the
same inputs, with the time and tokens each costs.

    python benchmarks/llm_vs_offline.py [--data ../shared/data] [--turns 16] [--tasks 12]
        [--base-url http://127.0.0.1:8089/v1]

Without --base-url the script starts its own model server (`make llm-runtime` first).

1. Turn extraction on LoCoMo dev turns: the first --turns turns of each conversation that
   LoCoMo's `observation` facts cite (a rough gold: one or more sentences per turn, written by
   the dataset's authors). Both extractors see the same turns in chunks of 8 (what ingestion
   sends). Per turn: gold coverage = share of the gold's content words (lower-case, 3+ letters,
   no stopwords, the speaker's name left out) found in the extraction's entity names and
   relation ends; precision = share of the extraction's content words that are in the gold;
   grounded = share of entity names whose words all occur in the turn (or the speaker's name),
   the opposite of invention. Chunks the model failed on (invalid after the retries) count
   as the model's failure: they are reported, and scored as empty extractions.
2. Controller decisions on the insight ablation stream (benchmarks/insights_ablation.py, the
   full controller "all"): the same --tasks tasks judged by the offline rules and by the model,
   each in its own space; pollution, success proxy, active insights, the operations applied and
   how many decisions the model got through the checks (the rest fell back to the rules).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from figures import Figures, add_json_out  # noqa: E402
from insights_ablation import (  # noqa: E402
    P_SUCCESS,
    SEEDS,
    Row,
    coin,
    load_stream,
    verdict,
)

from graphmem_neo4j.conversation.extract import OfflineExtractor  # noqa: E402
from graphmem_neo4j.conversation.extract_llm import LLMExtractor  # noqa: E402
from graphmem_neo4j.conversation.models import TurnExtraction, TurnInput  # noqa: E402
from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402
from graphmem_neo4j.conversation.text import CONVERSATION_STOPWORDS  # noqa: E402
from graphmem_neo4j.embedder import HashEmbedder  # noqa: E402
from graphmem_neo4j.errors import LLMError  # noqa: E402
from graphmem_neo4j.insights.models import RetrievalParams, TaskRecord  # noqa: E402
from graphmem_neo4j.llm import OpenAICompatibleLLM  # noqa: E402
from graphmem_neo4j.local_llm import MODEL_ALIAS, LocalLLM  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data"
CHUNK = 8
_WORD = re.compile(r"[a-z]{3,}")


def content_words(text: str, drop: set[str]) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in CONVERSATION_STOPWORDS} - drop


# --- 1. extraction -----------------------------------------------------------------------------
@dataclass(frozen=True)
class GoldTurn:
    turn: TurnInput
    gold: str


def gold_turns(data: Path, per_conversation: int) -> list[GoldTurn]:
    path = data / "locomo_dev" / "locomo_dev.json"
    records = {r["sample_id"]: r for r in json.loads(path.read_text(encoding="utf-8"))}
    out: list[GoldTurn] = []
    for sample, turns in read_locomo(path):
        cited: dict[str, list[str]] = {}
        for facts in records[sample]["observation"].values():
            for items in facts.values():
                for sentence, dia in items:
                    for d in [dia] if isinstance(dia, str) else dia:
                        cited.setdefault(str(d), []).append(sentence)
        chosen = [t for t in turns if t.turn_id in cited][:per_conversation]
        out += [GoldTurn(t, " ".join(cited[t.turn_id])) for t in chosen]
    return out


@dataclass
class Score:
    coverage: float = 0.0
    precision: float = 0.0
    grounded: float = 0.0
    entities: int = 0
    relations: int = 0
    turns: int = 0

    def add(self, gold: GoldTurn, got: TurnExtraction) -> None:
        drop = {gold.turn.speaker.lower()}
        want = content_words(gold.gold, drop)
        words: set[str] = set()
        for e in got.entities:
            words |= content_words(e.name, drop)
        for r in got.relations:
            words |= content_words(f"{r.source} {r.target} {r.type}", drop)
        said = content_words(f"{gold.turn.speaker} {gold.turn.text}", set())
        names = [content_words(e.name, set()) for e in got.entities]
        names = [n for n in names if n]
        self.coverage += len(want & words) / len(want) if want else 0.0
        self.precision += len(words & want) / len(words) if words else 0.0
        self.grounded += sum(n <= said for n in names) / len(names) if names else 1.0
        self.entities += len(got.entities)
        self.relations += len(got.relations)
        self.turns += 1

    def row(self) -> str:
        n = max(self.turns, 1)
        return (
            f"{self.coverage / n:>8.3f} {self.precision / n:>9.3f} {self.grounded / n:>8.3f} "
            f"{self.entities / n:>8.2f} {self.relations / n:>9.2f}"
        )


def extraction(turns: list[GoldTurn], llm: OpenAICompatibleLLM, figures: Figures) -> None:
    speakers = frozenset(g.turn.speaker for g in turns)
    offline = OfflineExtractor()
    model = LLMExtractor(llm, fallback=None, per_call=CHUNK)
    results: dict[str, tuple[Score, float, int]] = {}
    for name in ("offline", "llm"):
        score, failed = Score(), 0
        before = llm.usage.prompt_tokens + llm.usage.completion_tokens
        started = time.perf_counter()
        for i in range(0, len(turns), CHUNK):
            chunk = turns[i : i + CHUNK]
            inputs = [g.turn for g in chunk]
            try:
                got = (offline if name == "offline" else model).extract(inputs, speakers)
            except LLMError as e:
                print(
                    f"  llm chunk {i // CHUNK}: no valid answer ({str(e)[:160]})", file=sys.stderr
                )
                failed += 1
                got = [TurnExtraction() for _ in chunk]
            for g, extracted in zip(chunk, got, strict=True):
                score.add(g, extracted)
        seconds = time.perf_counter() - started
        tokens = llm.usage.prompt_tokens + llm.usage.completion_tokens - before
        results[name] = (score, seconds, tokens)
        print(
            f"  {name}: {seconds:.1f} s, {tokens} tokens, {failed} failed chunks", file=sys.stderr
        )
    chunks = -(-len(turns) // CHUNK)
    print(
        f"\nextraction: {len(turns)} LoCoMo dev turns cited by observations "
        f"({chunks} chunks of {CHUNK})"
    )
    print(
        f"{'extractor':<9} {'coverage':>8} {'precision':>9} {'grounded':>8} "
        f"{'ent/turn':>8} {'rel/turn':>9} {'s/turn':>7} {'tok/turn':>8}"
    )
    for name, (score, seconds, tokens) in results.items():
        n = max(score.turns, 1)
        print(f"{name:<9} {score.row()} {seconds / n:>7.3f} {tokens / n:>8.0f}")
        figures.add(f"{name} extraction: coverage", score.coverage / n)
        figures.add(f"{name} extraction: precision", score.precision / n)
        figures.add(f"{name} extraction: seconds per turn", seconds / n, "s")
    print(
        f"model answers: {llm.usage.calls} calls, {llm.usage.failures} invalid "
        f"(retried), response_format {llm.format}"
    )


# --- 2. controller -----------------------------------------------------------------------------
@dataclass
class ControllerRun:
    name: str
    harmful: int = 0
    retrieved: int = 0
    success: int = 0
    tasks: int = 0
    by_llm: int = 0
    active: int = 0
    seconds: float = 0.0
    tokens: int = 0
    operations: Counter[str] | None = None


def controller_run(
    memory: GraphMemory, name: str, warmup: list[Row], stream: list[Row], params: RetrievalParams
) -> ControllerRun:
    space = f"controller-{name}"
    svc = memory.insights
    memory.ensure_space(space)
    svc.record_tasks(
        [TaskRecord(r.id, r.query, "resolved", r.steps) for r in warmup], space=space, params=params
    )
    for row in warmup:
        svc.add_insight(SEEDS[row.family], space=space, evidence=[row.id], actor="benchmark")
    run, ops = ControllerRun(name), Counter[str]()
    llm = memory.llm
    before = llm.usage.prompt_tokens + llm.usage.completion_tokens if llm else 0
    started = time.perf_counter()
    for row in stream:
        shown = svc.retrieve(row.query, space=space, params=params).insights
        verdicts = [verdict(c.text, row.family, row.query) for c in shown]
        kind = next((k for k in ("harmful", "helpful") if k in verdicts), "neutral")
        resolved = coin(0, row.id) < P_SUCCESS[kind]
        task = TaskRecord(
            row.id,
            row.query,
            "resolved" if resolved else "failed",
            row.steps,
            feedback="Task completed." if resolved else "Task failed.",
        )
        done = svc.record_tasks([task], space=space, params=params, learn=True)
        feedback = done.tasks[0].feedback
        assert feedback is not None
        ops.update(e.operation for e in feedback.plan.edits)
        ops["ADD"] += int(feedback.plan.add.decision)
        run.by_llm += int(feedback.plan.decided_by.startswith("controller:llm"))
        run.harmful += verdicts.count("harmful")
        run.retrieved += len(shown)
        run.success += int(resolved)
        run.tasks += 1
    run.seconds = time.perf_counter() - started
    run.tokens = (llm.usage.prompt_tokens + llm.usage.completion_tokens - before) if llm else 0
    run.active = len(svc.list_insights(space=space, limit=1_000_000))
    run.operations = ops
    return run


def controller(
    data: Path, tasks: int, base: Settings, llm: OpenAICompatibleLLM, figures: Figures
) -> None:
    rows = load_stream(data / "alfworld_dev" / "trajectories.jsonl", 0, None)
    warmup = []
    for family in SEEDS:
        first = next(r for r in rows if r.family == family)
        warmup.append(first)
        rows.remove(first)
    stream = rows[:tasks]
    params = RetrievalParams(k=5, b=5, lam=1.0)
    embedder = HashEmbedder(384)
    runs = []
    for name, client in (("offline", None), ("llm", llm)):
        with GraphMemory(base, embedder=embedder, llm=client) as memory:
            memory.init()
            runs.append(controller_run(memory, name, warmup, stream, params))
    print(f"\ncontroller: {len(stream)} ALFWorld tasks of the ablation stream (seed 0), all ops")
    print(
        f"{'controller':<10} {'pollution':>9} {'success':>7} {'active':>6} {'by model':>8} "
        f"{'s/task':>7} {'tok/task':>8}  operations"
    )
    for r in runs:
        ops = ", ".join(f"{k} {v}" for k, v in sorted((r.operations or {}).items()) if k != "NONE")
        print(
            f"{r.name:<10} {r.harmful / max(r.retrieved, 1):>9.3f} {r.success / r.tasks:>7.3f} "
            f"{r.active:>6} {r.by_llm:>8} {r.seconds / r.tasks:>7.2f} "
            f"{r.tokens / r.tasks:>8.0f}  {ops}"
        )
        figures.add(f"{r.name} controller: pollution", r.harmful / max(r.retrieved, 1))
        figures.add(f"{r.name} controller: decisions by the model", r.by_llm)
        figures.add(f"{r.name} controller: seconds per task", r.seconds / r.tasks, "s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--turns", type=int, default=16, help="Turns per LoCoMo conversation")
    parser.add_argument("--tasks", type=int, default=12, help="Tasks of the insight stream")
    parser.add_argument("--base-url", default=None, help="A running server (else one is started)")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--threads", type=int, default=1, help="Model threads (2 shared cores)")
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("llm_vs_offline")

    with tempfile.TemporaryDirectory(prefix="graphmem-llm-bench-") as home:
        server = None
        base_url = args.base_url
        if base_url is None:
            from tests.conftest import free_port

            server = LocalLLM(Path(home) / "llm", free_port(), threads=args.threads)
            started = time.perf_counter()
            base_url = server.start().base_url
            print(f"model server up in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        falkordb = EmbeddedServer(Path(home))
        falkordb.ensure_running()
        try:
            llm = OpenAICompatibleLLM(
                model=MODEL_ALIAS, base_url=base_url, api_key=None, timeout=args.timeout
            )
            extraction(gold_turns(args.data, args.turns), llm, figures)
            settings = Settings(home=Path(home), database="llm_bench")
            controller(args.data, args.tasks, settings, llm, figures)
        finally:
            falkordb.stop()
            if server is not None:
                server.stop()
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
