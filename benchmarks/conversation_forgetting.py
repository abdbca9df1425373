"""Selective forgetting on a 10k-turn space: nodes, edges and bytes removed, recall kept.

    python benchmarks/conversation_forgetting.py --data ../shared/data/locomo_dev
        [--sweep 0.1,0.15,0.2,0.25,0.3 --plot docs/img/forgetting_tradeoff.png]

One space holds the LoCoMo dev conversations (with their questions) interleaved, session by
session, with synthetic sessions up to --turns turns; nothing is retrieved before forgetting
(no access statistics help). Hybrid evidence recall@10 on the LoCoMo questions is measured
before and after one forgetting run with the default settings (the paper's Experiment 2
applies forgetting once to a persistent graph), then everything is restored from the archive
and recall is measured again. With --sweep, the same is repeated at each listed threshold
(forget, measure, restore) and --plot draws recall against the share of nodes removed.
"""

from __future__ import annotations

import argparse
import json
import random
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from conversation_synthetic import synthetic_turns  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j.conversation.models import TurnInput  # noqa: E402
from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def interleave(real: list[TurnInput], filler: list[TurnInput], seed: int = 3) -> list[TurnInput]:
    """Whole sessions, real ones keeping their order, spread at random among the filler."""

    def sessions(turns: list[TurnInput]) -> list[list[TurnInput]]:
        out: dict[str, list[TurnInput]] = defaultdict(list)
        for t in turns:
            out[t.session].append(t)
        return list(out.values())

    real_s, filler_s = sessions(real), sessions(filler)
    rng = random.Random(seed)
    slots = sorted(rng.sample(range(len(real_s) + len(filler_s)), len(real_s)))
    merged: list[list[TurnInput]] = []
    ri = fi = 0
    for i in range(len(real_s) + len(filler_s)):
        if ri < len(slots) and slots[ri] == i:
            merged.append(real_s[ri])
            ri += 1
        else:
            merged.append(filler_s[fi])
            fi += 1
    return [t for s in merged for t in s]


def recall_at_10(service: Any, space: str, questions: Sequence[dict[str, Any]]) -> float:
    scores = []
    for q in questions:
        hits = [
            h.turn_id for h in service.search(q["question"], space=space, k=10, touch=False).hits
        ]
        scores.append(len(set(q["evidence"]) & set(hits)) / len(set(q["evidence"])))
    return statistics.fmean(scores)


def forget_measure_restore(
    service: Any, questions: Sequence[dict[str, Any]], cfg: Any, nodes_before: int
) -> Any:
    """One point of the trade-off: forget at `cfg.threshold`, measure, restore."""
    from plots import ForgettingPoint

    report = service.forget(space="mem", config=cfg)
    removed = sum(report.removed_by_label.get(k, 0) for k in ("Turn", "Entity", "Session"))
    recall = recall_at_10(service, "mem", questions)
    if any(report.removed_by_label.values()):  # a run that pruned nothing archived nothing
        service.restore(space="mem", run_id=report.run_id)
    print(
        f"threshold {cfg.threshold:g}: -{100 * removed / nodes_before:.1f}% nodes "
        f"{report.removed_by_label}, recall@10 {recall:.3f}"
    )
    return ForgettingPoint(cfg.threshold, removed / nodes_before, recall)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--threshold", type=float, help="override the importance threshold")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument(
        "--sweep", help="comma-separated thresholds: forget, measure and restore at each"
    )
    parser.add_argument("--plot", type=Path, help="with --sweep: write the trade-off image here")
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("conversation_forgetting")
    sweep = [float(t) for t in args.sweep.split(",")] if args.sweep else []

    from graphmem_neo4j.embedder import HashEmbedder, SentenceTransformerEmbedder
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings
    from graphmem_neo4j.store.embedded import EmbeddedServer

    real: list[TurnInput] = []
    for sample, turns in read_locomo(args.data / "locomo_dev.json"):
        # turn ids are per conversation ("D1:3"): prefix them, and the sessions, with it
        real += [
            replace(t, turn_id=f"{sample}/{t.turn_id}", session=f"{sample}/{t.session}")
            for t in turns
        ]
    questions = []
    for line in (args.data / "qa.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("evidence"):
            row["evidence"] = [f"{row['sample_id']}/{e}" for e in row["evidence"]]
            questions.append(row)
    turns = interleave(real, synthetic_turns(max(0, args.turns - len(real))))
    embedder: Any = HashEmbedder() if args.embedder == "hash" else SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    with tempfile.TemporaryDirectory(prefix="graphmem-forget-") as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(
                home=Path(home), embedded_port=server.port, database=f"fg_{uuid.uuid4().hex[:8]}"
            )
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                service = memory.conversation
                started = time.perf_counter()
                service.add_turns(turns, space="mem", forget_every=0)
                print(f"built {len(turns)} turns in {time.perf_counter() - started:.0f}s")
                cfg = service.config.forgetting
                if args.threshold is not None:
                    cfg = replace(cfg, threshold=args.threshold)
                before = memory.stats("mem")
                r_before = recall_at_10(service, "mem", questions)
                report = service.forget(space="mem", config=cfg)
                after = memory.stats("mem")
                r_after = recall_at_10(service, "mem", questions)
                kept = ("Turn", "Entity", "Session")
                n_before = sum(before["nodes"].get(k, 0) for k in kept)
                n_after = sum(after["nodes"].get(k, 0) for k in kept)
                e_before = before["total_relationships"]
                print(f"forgetting config: {cfg}")
                print(
                    f"nodes (Session+Turn+Entity): {n_before} -> {n_after} "
                    f"(-{100 * (n_before - n_after) / n_before:.1f}%): {report.removed_by_label}"
                )
                print(
                    f"edges: {e_before} -> {after['total_relationships']} "
                    f"(-{100 * report.edges_removed / e_before:.1f}%); "
                    f"bytes removed (estimate): {report.bytes_removed}"
                )
                print(
                    f"hybrid recall@10 on {len(questions)} LoCoMo questions: {r_before:.3f} -> "
                    f"{r_after:.3f} ({r_after - r_before:+.3f})"
                )
                service.restore(space="mem", run_id=report.run_id)
                r_restored = recall_at_10(service, "mem", questions)
                print(f"after restore: recall@10 {r_restored:.3f}")
                figures.add("nodes removed", (n_before - n_after) / n_before)
                figures.add("recall@10 before forgetting", r_before)
                figures.add("recall@10 change after forgetting", r_after - r_before)
                figures.add("recall@10 after restore", r_restored)
                points = [
                    forget_measure_restore(service, questions, replace(cfg, threshold=t), n_before)
                    for t in sweep
                ]
                if args.plot and points:
                    from plots import forgetting_plot

                    forgetting_plot(
                        points,
                        r_before,
                        args.plot,
                        default_threshold=cfg.threshold,
                        targets={"target ≥ 9%": 0.09},
                    )
                    print(f"trade-off written to {args.plot}")
        finally:
            server.stop()
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
