"""Graph matching on ALFWorld expert trajectories: edit-path recovery of injected changes,
quality of the approximation against exact search, and matching speed.

    python benchmarks/experience_matching.py [--data ../shared/data/alfworld_dev/trajectories.jsonl]

(a) Each expert trajectory gets one perturbation of each kind (replace an action, delete a
    step, insert 1-3 invalid attempts, swap two adjacent steps) and, as a harder extra, all of
    replace + delete + insert at once. The perturbed copy is matched against the original; the
    predicted edit path is scored against the true one (the edit path under the known node
    correspondence) as precision and recall over operations.
(b) Pairs of different expert runs of one task type that are small enough for exact search:
    how often the approximation finds the optimal cost, and its mean excess cost.
(c) Time to match pairs of 100-action graphs.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from figures import Figures, add_json_out

from graphmem_neo4j.experience.diff import diff_graphs, edit_path
from graphmem_neo4j.experience.graph import trajectory_graph
from graphmem_neo4j.experience.matching import (
    EXACT_LIMIT,
    approximate_matching,
    edit_cost,
    exact_matching,
    match_graphs,
)
from graphmem_neo4j.experience.models import EditOp, Step, Trajectory
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.experience.perturb import PERTURB_KINDS, Perturbation, PerturbKind, perturb

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "alfworld_dev" / "trajectories.jsonl"


def op_key(op: EditOp) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(op.as_dict().items()))


def mixed(expert: Trajectory, rng: random.Random) -> Perturbation | None:
    """replace, then delete, then insert invalid attempts, on one copy."""
    current, renamed = expert, dict[str, str]()
    kinds: tuple[PerturbKind, ...] = ("replace", "delete", "insert_invalid")
    for kind in kinds:
        p = perturb(current, kind, rng)
        if p is None:
            return None
        for new, old in p.renamed.items():
            renamed[new] = renamed.get(old, old)
        current = replace(p.perturbed, kind="expert", reward=1.0)
    final = replace(current, kind="exploration", reward=0.0)
    return Perturbation("replace", expert, final, renamed)


def recovery(trajectories: list[Trajectory], seed: int, figures: Figures) -> None:
    print("(a) edit-path recovery of injected changes (precision / recall over edit operations)")
    header = f"{'perturbation':<16}{'cases':>6}{'skip':>6}{'P':>8}{'R':>8}{'exact':>8}"
    print(header + f"{'node P':>8}{'node R':>8}   matcher used")
    misses: list[str] = []
    for kind in (*PERTURB_KINDS, "mixed"):
        rng = random.Random(f"{seed}-{kind}")
        totals = Counter[str]()
        methods = Counter[str]()
        for expert in trajectories:
            p = mixed(expert, rng) if kind == "mixed" else perturb(expert, kind, rng)  # type: ignore[arg-type]
            if p is None:
                totals["skipped"] += 1
                continue
            g1, g2 = trajectory_graph(p.perturbed), trajectory_graph(expert)
            found = diff_graphs(g1, g2)
            methods[found.matching.method] += 1
            pred = Counter(op_key(op) for op in found.edit_path)
            true = Counter(op_key(op) for op in edit_path(g1, g2, p.true_mapping(g1, g2)))
            node_pred = Counter(k for k in pred.elements() if dict(k)["op"].endswith("_node"))
            node_true = Counter(k for k in true.elements() if dict(k)["op"].endswith("_node"))
            totals["cases"] += 1
            totals["hit"] += sum((pred & true).values())
            totals["pred"] += sum(pred.values())
            totals["true"] += sum(true.values())
            totals["node_hit"] += sum((node_pred & node_true).values())
            totals["node_pred"] += sum(node_pred.values())
            totals["node_true"] += sum(node_true.values())
            totals["exact"] += pred == true
            if pred != true:
                truth_cost = edit_cost(g1, g2, p.true_mapping(g1, g2))
                if found.cost < truth_cost - 1e-9:
                    totals["cheaper"] += 1
                elif found.cost > truth_cost + 1e-9:
                    totals["dearer"] += 1
                else:
                    totals["tied"] += 1

        def ratio(a: str, b: str, totals: Counter[str] = totals) -> str:
            return f"{totals[a] / totals[b]:.3f}" if totals[b] else "  n/a"

        print(
            f"{kind:<16}{totals['cases']:>6}{totals['skipped']:>6}{ratio('hit', 'pred'):>8}"
            f"{ratio('hit', 'true'):>8}{ratio('exact', 'cases'):>8}"
            f"{ratio('node_hit', 'node_pred'):>8}{ratio('node_hit', 'node_true'):>8}   "
            + ", ".join(f"{m} {n}" for m, n in sorted(methods.items()))
        )
        for name, (a, b) in {"precision": ("hit", "pred"), "recall": ("hit", "true")}.items():
            if totals[b]:
                figures.add(f"{kind}: edit-path {name}", totals[a] / totals[b])
        if totals["cases"] != totals["exact"]:
            misses.append(
                f"    {kind}: of {totals['cases'] - totals['exact']} differing paths, "
                f"{totals['cheaper']} cost less than the injected one (the injected edits are not "
                f"a cheapest path), {totals['tied']} cost the same, {totals['dearer']} cost more "
                "(the matcher missed the optimum)"
            )
    print("    exact = share of cases whose whole edit path equals the true one")
    print("\n".join(misses))


def approximation_gap(
    trajectories: list[Trajectory], seed: int, pairs: int, figures: Figures
) -> None:
    by_type: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        if len(trajectory_graph(t).nodes) <= EXACT_LIMIT:
            by_type[str(t.metadata.get("task_type", "?"))].append(t)
    rng = random.Random(seed)
    candidates = [(a, b) for runs in by_type.values() for a in runs for b in runs if a.id < b.id]
    rng.shuffle(candidates)
    optimal, excess, relative = 0, [], []
    started = time.perf_counter()
    for a, b in candidates[:pairs]:
        g1, g2 = trajectory_graph(a), trajectory_graph(b)
        approx = edit_cost(g1, g2, approximate_matching(g1, g2))
        exact = exact_matching(g1, g2)[1]
        optimal += abs(approx - exact) < 1e-9
        excess.append(approx - exact)
        relative.append((approx - exact) / exact if exact else 0.0)
    n = min(pairs, len(candidates))
    print(
        f"\n(b) approximation vs exact search on {n} pairs of different expert runs of one task "
        f"type with ≤ {EXACT_LIMIT} nodes ({time.perf_counter() - started:.1f} s)"
    )
    if n:
        print(
            f"    optimal in {optimal / n:.3f} of pairs; mean excess cost "
            f"{statistics.mean(excess):.3f} (mean relative excess "
            f"{statistics.mean(relative):.3%}, max {max(excess):.2f})"
        )
        figures.add("approximate matching optimal, share of pairs", optimal / n)


def timed(g1: object, g2: object, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        match_graphs(g1, g2)  # type: ignore[arg-type]
        times.append(time.perf_counter() - started)
    return times


def speed(trajectories: list[Trajectory], seed: int, repeats: int, figures: Figures) -> None:
    print("\n(c) matching time for pairs of 100-action graphs (median / max seconds per pair)")
    rng = random.Random(seed)
    longest = sorted(trajectories, key=lambda t: -len(t.steps))[:5]
    rows: list[tuple[str, list[float], str]] = []
    for t in longest:
        p = mixed(t, rng)
        if p is None:
            continue
        g1, g2 = trajectory_graph(p.perturbed), trajectory_graph(t)
        rows.append(("expert vs perturbed copy", timed(g1, g2, repeats), f"{len(g2.nodes)} nodes"))
    for a, b in itertools.pairwise(longest):
        g1, g2 = trajectory_graph(a), trajectory_graph(b)
        rows.append(
            ("two different experts", timed(g1, g2, repeats), f"{len(g1.nodes)}/{len(g2.nodes)}")
        )
    # adversarial: 100 distinct actions, every one renamed on the other side
    names = [f"take thing {i} from place {i % 7}" for i in range(100)]
    observed = [f"you see thing {i + 1}." for i in range(100)]
    g = trajectory_graph(
        Trajectory("a", "t", "expert", 1.0, tuple(map(Step, names, observed)), "start")
    )
    renamed = [n.replace("take", "grab") for n in names]
    h = trajectory_graph(
        Trajectory("b", "t", "expert", 1.0, tuple(map(Step, renamed, observed)), "start")
    )
    rows.append(("100 actions, all renamed", timed(h, g, repeats), "101/101 nodes, no anchor"))
    # the exact search at its size limit, with nothing in common
    small_a = trajectory_graph(
        Trajectory("c", "t", "expert", 1.0, tuple(Step(f"open box {i}", f"o{i}") for i in range(7)))
    )
    small_b = trajectory_graph(
        Trajectory("d", "t", "expert", 1.0, tuple(Step(f"shut box {i}", f"o{i}") for i in range(7)))
    )
    rows.append(("exact search, 8 vs 8 nodes", timed(small_a, small_b, repeats), "disjoint keys"))
    groups: dict[str, list[float]] = defaultdict(list)
    notes: dict[str, str] = {}
    for name, times, note in rows:
        groups[name] += times
        notes.setdefault(name, note)
    for name, times in groups.items():
        print(
            f"    {name:<28} median {statistics.median(times):.4f}  max {max(times):.4f}"
            f"   ({len(times)} runs; e.g. {notes[name]})"
        )
        figures.add(f"match {name}, max", max(times), "s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--exact-pairs", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("experience_matching")
    if not args.data.is_file():
        sys.exit(f"no data at {args.data}: pass --data")
    # expert runs only (ScienceWorld's data also holds failed runs, marked in their metadata)
    trajectories = [
        t
        for t in parse_file(args.data, kind="expert")
        if t.metadata.get("run", "expert") == "expert"
    ]
    print(f"{len(trajectories)} expert trajectories from {args.data}; seed {args.seed}\n")
    recovery(trajectories, args.seed, figures)
    approximation_gap(trajectories, args.seed, args.exact_pairs, figures)
    speed(trajectories, args.seed, args.repeats, figures)
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
