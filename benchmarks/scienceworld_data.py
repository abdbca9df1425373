"""Development data from the ScienceWorld simulator: expert runs and runs that really fail.

    pip install scienceworld==1.2.3      # carries its jar; runs on Java 17, offline
    python benchmarks/scienceworld_data.py --out /tmp/scienceworld_dev.jsonl
        [--variations 2] [--tasks boil,melt,...] [--max-steps 80] [--seed 0]

For each task type (ScienceWorld's task names) and its first --variations TRAIN variations
(`get_variations_train()`; `--split test` or `dev` draws from the variations kept for checks
instead), the simulator's gold action
sequence is replayed with `step()`, which records every observation and the real score. Then two
exploration runs per variation are replayed and scored the same way:

- partial: the gold run cut at a random point in its second half (the gold replay's steps and
  its score at that step: the simulator is deterministic);
- perturbed: one gold action dropped, or two adjacent ones swapped, and the run cut after
  --tail further actions.

An exploration run is written only when the simulator scores it below the gold run; an expert
run only when its score is 100. Runs longer than --max-steps actions are skipped (the
experience layer's edit-distance matching is meant for runs of tens of actions).

Reward: ScienceWorld scores 0 to 100; a row's `reward` is score / 100 (a negative score, the
simulator's mark of a failed task, is 0). The experience layer treats reward 1 as resolved, and
anything below 1 as not fully resolved: an exploration run.

A small test fixture is cut from a generated file without the simulator: `--trim-from DEV
--out FIXTURE --tasks a,b --variations 1` keeps those runs with observations cut to
--trim characters (tests/fixtures/scienceworld_small.jsonl is made so).

Rows are the experience layer's generic JSONL (graphmem_neo4j/experience/parsing.py) with
`metadata` = {task_type, variation, run: expert|partial|perturbed, score}.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any


def replay(env: Any, actions: list[str]) -> tuple[list[dict[str, str]], list[int], str]:
    """Steps with their observations, the score after each, and the initial observation."""
    initial, _ = env.reset()
    steps = []
    scores = []
    for action in actions:
        observation, _, done, info = env.step(action)
        steps.append({"action": action, "observation": str(observation).strip()})
        scores.append(int(info.get("score", 0)))
        if done:
            break
    return steps, scores, str(initial).strip()


def row(
    task: str,
    variation: int,
    run: str,
    goal: str,
    initial: str,
    steps: list[dict[str, str]],
    score: int,
) -> dict[str, Any]:
    return {
        "id": f"{task}-v{variation}-{run}",
        "task": goal,
        "reward": max(0, min(score, 100)) / 100,
        "initial_observation": initial,
        "steps": steps,
        "metadata": {"task_type": task, "variation": variation, "run": run, "score": score},
    }


def perturbed(gold: list[str], rng: random.Random, tail: int) -> list[str]:
    n = len(gold)
    at = rng.randint(1, max(1, n - 2))
    if rng.random() < 0.5 or at + 1 >= n:  # a run too short to swap in drops an action
        changed = gold[:at] + gold[at + 1 :]
    else:
        changed = [*gold[:at], gold[at + 1], gold[at], *gold[at + 2 :]]
    return changed[: min(n, at + 1 + tail)]


def trim(args: argparse.Namespace) -> int:
    wanted = {t for t in args.tasks.split(",") if t}
    seen: dict[str, set[int]] = {}
    kept = 0
    with args.trim_from.open(encoding="utf-8") as source, args.out.open("w") as out:
        for line in source:
            r = json.loads(line)
            task, variation = r["metadata"]["task_type"], r["metadata"]["variation"]
            if wanted and task not in wanted:
                continue
            variations = seen.setdefault(task, set())
            if variation not in variations and len(variations) >= args.variations:
                continue
            variations.add(variation)
            r["initial_observation"] = r["initial_observation"][: args.trim]
            for step in r["steps"]:
                step["observation"] = step["observation"][: args.trim]
            out.write(json.dumps(r) + "\n")
            kept += 1
    print(json.dumps({"out": str(args.out), "runs": kept}))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    parser.add_argument("--variations", type=int, default=2, help="variations per task")
    parser.add_argument(
        "--split",
        choices=("train", "dev", "test"),
        default="train",
        help="the simulator's variations to draw from: train (development data), or dev or "
        "test (kept for checks)",
    )
    parser.add_argument(
        "--from-variation", type=int, default=0, help="skip the split's first N variations"
    )
    parser.add_argument("--tasks", default="", help="comma-separated task names (default all)")
    parser.add_argument("--max-steps", type=int, default=80, help="skip longer gold runs")
    parser.add_argument("--tail", type=int, default=6, help="actions kept after a perturbation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trim-from", type=Path, help="cut a fixture from this generated file")
    parser.add_argument("--trim", type=int, default=120, help="characters kept per observation")
    args = parser.parse_args(argv)
    if args.trim_from is not None:
        return trim(args)
    try:
        from scienceworld import ScienceWorldEnv
    except ImportError:
        print("needs the simulator: pip install scienceworld==1.2.3", file=sys.stderr)
        return 2
    env = ScienceWorldEnv("")
    tasks = [t for t in args.tasks.split(",") if t] or list(env.get_task_names())
    rng = random.Random(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    started = time.monotonic()
    with args.out.open("w", encoding="utf-8") as out:
        for n, task in enumerate(tasks, 1):
            env.load(task, 0, "easy", generateGoldPath=True)
            split = {
                "train": env.get_variations_train,
                "dev": env.get_variations_dev,
                "test": env.get_variations_test,
            }[args.split]
            chosen = list(split())[args.from_variation : args.from_variation + args.variations]
            for variation in chosen:
                env.load(task, variation, "easy", generateGoldPath=True)
                gold = list(env.get_gold_action_sequence())
                goal = str(env.get_task_description()).strip()
                if len(gold) > args.max_steps:
                    continue
                steps, scores, initial = replay(env, gold)
                if not scores or scores[-1] < 100:
                    continue
                rows = [row(task, variation, "expert", goal, initial, steps, scores[-1])]
                cut = rng.randint(max(1, len(steps) // 2), max(1, len(steps) - 1))
                if scores[cut - 1] < 100:
                    rows.append(
                        row(task, variation, "partial", goal, initial, steps[:cut], scores[cut - 1])
                    )
                changed, changed_scores, _ = replay(env, perturbed(gold, rng, args.tail))
                if changed_scores and changed_scores[-1] < 100:
                    rows.append(
                        row(
                            task, variation, "perturbed", goal, initial, changed, changed_scores[-1]
                        )
                    )
                for r in rows:
                    out.write(json.dumps(r) + "\n")
                written += len(rows)
            print(
                f"[{n}/{len(tasks)}] {task}: {written} runs, {time.monotonic() - started:.0f}s",
                file=sys.stderr,
                flush=True,
            )
    print(json.dumps({"out": str(args.out), "runs": written}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
