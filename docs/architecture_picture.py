"""Draws docs/img/architecture.png, the picture of docs/architecture.md (matplotlib, no
display needed): `.venv/bin/python docs/architecture_picture.py`."""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parent / "img" / "architecture.png"

# (x, y, width, height, title, body, colour); y grows upwards, units are arbitrary
BOXES = [
    (0, 92, 30, 7, "graphmem CLI", "cli/*.py (Typer)", "#e8e8e8"),
    (35, 92, 30, 7, "Python API", "GraphMemory (memory.py)", "#e8e8e8"),
    (70, 92, 30, 7, "MCP server", "mcp_server.py", "#e8e8e8"),
    (
        0,
        79,
        100,
        9,
        "GraphMemory: the facade (memory.py)",
        "composes the parts and the services; one call per user action, its LLM tokens\n"
        "tallied (_Metered) and written to the space's counters when it returns",
        "#fde9c9",
    ),
    (
        0,
        65,
        48,
        10,
        "recall/  (across layers)",
        "service.py  ask the layers in parallel\ngather.py  one relevance scale\n"
        "rank.py  dedupe, pack to a budget",
        "#d9ead3",
    ),
    (
        52,
        65,
        48,
        10,
        "chatlog/  (across layers)",
        "parsing.py  heuristics.py\nworkflow.py  plan, then ingest\n"
        "adapters.py  dicts from API / MCP",
        "#d9ead3",
    ),
    (
        0,
        43,
        23.5,
        18,
        "conversation/",
        "service.py\ningest.py  plan.py\nentities.py  extract.py\nsearch.py  fusion.py  sf.py\n"
        "forget.py  state.py",
        "#cfe2f3",
    ),
    (
        25.5,
        43,
        23.5,
        18,
        "facts/",
        "service.py\nupdate.py  (§3.3)\nwrites.py  reader.py\nlocalise.py  scoring.py\n"
        "rewrite.py  results.py",
        "#cfe2f3",
    ),
    (
        51,
        43,
        23.5,
        18,
        "insights/",
        "service.py\ncontroller.py\nrules.py  scoring.py\nparsing.py",
        "#cfe2f3",
    ),
    (
        76.5,
        43,
        23.5,
        18,
        "experience/",
        "service.py\nlearn.py  (§4.2)\nrows.py  retrieval.py\ndiff.py  matching.py\n"
        "graph.py  insights.py",
        "#cfe2f3",
    ),
    (
        0,
        28,
        100,
        11,
        "deps.Parts: what a service is given (parts.py: MemoryParts)",
        "store  |  embedder (query memo)  |  llm_for(space): the LLM, tokens booked to that space\n"
        "defaults (space, batch size, LLM fallback)  |  ensure_space / require_space  |  "
        "nearest.py: k-NN within a space",
        "#ead1dc",
    ),
    (
        0,
        13,
        100,
        11,
        "The store seam: store.base.GraphStore",
        'read("layer/name", params)  write(...)  write_batches(query, rows)  exclusive(space)\n'
        "queries.py loads cypher/<layer>/<name>.cypher (a .falkordb.cypher variant wins;\n"
        "toFloatList / vector.similarity.cosine rewritten for FalkorDB)",
        "#f4cccc",
    ),
    (
        0,
        0,
        48,
        9,
        "FalkorDB (default)",
        "falkordb_store.py, embedded.py:\nserver on a Unix socket in ~/.graphmem",
        "#fff2cc",
    ),
    (
        52,
        0,
        48,
        9,
        "Neo4j 5",
        "neo4j_store.py (Bolt), local_neo4j.py:\ngraphmem neo4j start",
        "#fff2cc",
    ),
]
ARROWS = [  # (x, from_y, to_y)
    (15, 92, 88),
    (50, 92, 88),
    (85, 92, 88),
    (24, 79, 75),
    (76, 79, 75),
    (50, 79, 61),
    (24, 65, 61),
    (76, 65, 61),
    (11, 43, 39),
    (37, 43, 39),
    (62, 43, 39),
    (88, 43, 39),
    (50, 28, 24),
    (24, 13, 9),
    (76, 13, 9),
]


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    fig, ax = plt.subplots(figsize=(11, 10.5))
    for x, y, w, h, title, body, colour in BOXES:
        ax.add_patch(
            FancyBboxPatch(
                (x, y),
                w,
                h,
                boxstyle="round,pad=0.3,rounding_size=0.8",
                facecolor=colour,
                edgecolor="#555555",
                linewidth=1,
            )
        )
        ax.text(
            x + w / 2, y + h - 1.4, title, ha="center", va="top", fontsize=10.5, fontweight="bold"
        )
        ax.text(
            x + w / 2,
            y + h - 3.6,
            body,
            ha="center",
            va="top",
            fontsize=8.3,
            family="monospace",
            linespacing=1.35,
        )
    for x, top, bottom in ARROWS:
        ax.annotate(
            "",
            xy=(x, bottom + 0.4),
            xytext=(x, top - 0.4),
            arrowprops={"arrowstyle": "->", "color": "#333333", "lw": 1},
        )
    ax.text(50.8, 70, "layer\nservices", fontsize=7.5, va="center", ha="left", color="#333333")
    ax.set_xlim(-2, 102)
    ax.set_ylim(-2, 101)
    ax.axis("off")
    ax.set_title(
        "graphmem-neo4j: entry points, facade, layers, parts, store seam, engines", fontsize=12
    )
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)
    print(OUT)


if __name__ == "__main__":
    main()
