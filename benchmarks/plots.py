"""Plot images for the benchmark pages (matplotlib, no display needed): the insight
controller ablation curves and the forgetting trade-off."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# one colour per controller, the same in the table and the picture
CONTROLLER_COLOURS = {"add+keep": "#d62728", "add+keep+archive": "#ff7f0e", "all": "#2ca02c"}


def _pyplot():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on CI or these machines
    import matplotlib.pyplot as plt

    return plt


@dataclass(frozen=True)
class AblationSeries:
    """One controller's run: per task, the pollution over the last `window` tasks, and the
    number of active insights at (task index, count) checkpoints."""

    name: str
    pollution: Sequence[float]
    active: Sequence[tuple[int, int]]


def ablation_plot(series: Sequence[AblationSeries], window: int, path: Path) -> Path:
    """Two panels side by side: pollution (harmful share of the retrieved insights over the
    last `window` tasks) and active insights, one line per controller."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), dpi=110)
    for run in series:
        colour = CONTROLLER_COLOURS.get(run.name)
        left.plot(range(1, len(run.pollution) + 1), run.pollution, color=colour, label=run.name)
        right.plot([i for i, _ in run.active], [a for _, a in run.active], color=colour)
    tasks = max(len(run.pollution) for run in series)
    left.set(
        title=f"pollution: harmful share, last {window} tasks",
        xlabel="tasks seen",
        ylim=(0, None),
        xlim=(0, tasks),
    )
    right.set(title="active insights", xlabel="tasks seen", ylim=(0, None), xlim=(0, tasks))
    for axis in (left, right):
        axis.grid(alpha=0.3)
    left.legend(frameon=False)
    return _save(fig, path)


@dataclass(frozen=True)
class ForgettingPoint:
    """One forgetting run at `threshold`: the share of Session, Turn and Entity nodes it
    removed and the recall@10 measured right after it."""

    threshold: float
    removed_share: float
    recall: float


def forgetting_plot(
    points: Sequence[ForgettingPoint],
    recall_before: float,
    path: Path,
    *,
    default_threshold: float | None = None,
    targets: Mapping[str, float] | None = None,
) -> Path:
    """Recall@10 against the share of nodes forgetting removed, one point per threshold
    (labelled), with the recall before forgetting as a reference line."""
    plt = _pyplot()
    fig, axis = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    ordered = sorted(points, key=lambda p: p.removed_share)
    xs = [100 * p.removed_share for p in ordered]
    ys = [p.recall for p in ordered]
    axis.plot(xs, ys, marker="o", color="#4C8EDA")
    for point, x, y in zip(ordered, xs, ys, strict=True):
        bold = default_threshold is not None and abs(point.threshold - default_threshold) < 1e-9
        axis.annotate(
            f"{point.threshold:g}" + (" (default)" if bold else ""),
            (x, y),
            textcoords="offset points",
            xytext=(4, 6),
            fontsize=8,
            fontweight="bold" if bold else "normal",
        )
    axis.axhline(recall_before, color="#7F8C8D", linestyle="--", linewidth=1)
    axis.annotate(
        f"before forgetting: {recall_before:.3f}",
        (1, recall_before),
        xycoords=("axes fraction", "data"),
        textcoords="offset points",
        xytext=(-4, -12),
        ha="right",
        fontsize=8,
        color="#555555",
    )
    for label, value in (targets or {}).items():
        axis.axvline(100 * value, color="#E74C3C", linestyle=":", linewidth=1)
        axis.annotate(
            label, (100 * value, min(ys)), xytext=(3, 0), textcoords="offset points", fontsize=8
        )
    axis.set(
        title="forgetting: recall kept vs. nodes removed (one point per threshold)",
        xlabel="Session + Turn + Entity nodes removed (%)",
        ylabel="hybrid recall@10",
        xlim=(0, None),
    )
    axis.title.set_fontsize(10)
    axis.grid(alpha=0.3)
    return _save(fig, path)


def _save(fig, path: Path) -> Path:  # type: ignore[no-untyped-def]
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path)
    _pyplot().close(fig)
    return path
