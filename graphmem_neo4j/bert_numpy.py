"""A sentence-transformers BERT model (Transformer → mean or CLS Pooling → Normalize) run in
numpy.

It reads the model directory sentence-transformers reads (config.json, tokenizer.json,
model.safetensors, sentence_bert_config.json, 1_Pooling/config.json) and computes the same
float32 forward pass, so all-MiniLM-L6-v2 gives the vectors sentence-transformers gives (max
absolute difference about 1e-6) without importing torch: loading takes a few tens of
milliseconds instead of seconds. The architecture is BERT (Devlin et al. 2019, §3) with
post-layer-norm blocks; pooling is the attention-masked mean, then L2 normalisation.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import ConfigError
from .model_files import pooling_mode, read_json, unsupported_by_numpy

Array = npt.NDArray[np.float32]

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
_MASKED = float(np.finfo(np.float32).min)  # what transformers adds to masked attention scores
BLAS_THREADS = 1
"""BLAS runs on one thread while we embed. Its worker threads spin while they wait for work:
on the 2-core machine with other jobs running, two BLAS threads embedded one query in about
300 ms instead of 40 ms, and 768 turns at 53-73 texts/s instead of 137-172. Several batches
run on threads of our own instead (`workers`), which wait without spinning."""
_controller: Any = None


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Tensors of a .safetensors file as read-only arrays over a memory map (nothing copied;
    pages are read when first touched). Format: u64 header size, JSON header, raw data."""
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (header_size,) = struct.unpack("<Q", mapped[:8])
    header = json.loads(mapped[8 : 8 + header_size])
    base = 8 + header_size
    tensors: dict[str, npt.NDArray[Any]] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] not in _DTYPES:
            raise ConfigError(f"{path}: tensor {name} has unsupported dtype {entry['dtype']}")
        start, end = entry["data_offsets"]
        dtype = np.dtype(_DTYPES[entry["dtype"]])
        count = (end - start) // dtype.itemsize
        array = np.frombuffer(mapped, dtype=dtype, count=count, offset=base + start)
        tensors[name] = array.reshape(entry["shape"])
    return tensors


@dataclass(frozen=True)
class _Layer:
    qkv_weight: Array  # (3·hidden, hidden): query, key and value projections stacked
    qkv_bias: Array
    attention_out_weight: Array
    attention_out_bias: Array
    attention_norm: tuple[Array, Array]
    intermediate_weight: Array
    intermediate_bias: Array
    output_weight: Array
    output_bias: Array
    output_norm: tuple[Array, Array]


class BertEncoder:
    """The numpy forward pass. Thread-safe: nothing is mutated after construction."""

    def __init__(self, model_dir: Path) -> None:
        from tokenizers import Tokenizer

        reason = unsupported_by_numpy(model_dir)
        if reason is not None:
            raise ConfigError(
                f"the numpy embedder cannot run the model in {model_dir}: {reason}; "
                "use GRAPHMEM_EMBEDDER=sentence-transformers for it"
            )
        config = read_json(model_dir / "config.json")
        st_file = model_dir / "sentence_bert_config.json"
        st_config = read_json(st_file) if st_file.is_file() else {}
        self.heads = int(config["num_attention_heads"])
        self.hidden = int(config["hidden_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_tokens = int(st_config.get("max_seq_length", config["max_position_embeddings"]))
        self.workers = min(4, os.cpu_count() or 1)
        self.lower_case = bool(st_config.get("do_lower_case", False))
        self.cls_pooling = pooling_mode(model_dir) == "cls"
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_tokens)
        tensors = read_safetensors(model_dir / "model.safetensors")
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

        def t(name: str) -> Array:
            return tensors[prefix + name].astype(np.float32, copy=False)

        def w(array: Array) -> Array:
            # The forward multiplies by W.T; stored column-major, W.T is contiguous and BLAS
            # streams it without a transposed pack: a query of 20 tokens 20.2 → 14.2 ms, the
            # same floats (the forward is memory-bound: 42 MB of weights per call).
            return np.asfortranarray(array)

        self.word_embeddings = t("embeddings.word_embeddings.weight")
        self.position_embeddings = t("embeddings.position_embeddings.weight")
        self.token_type_zero = t("embeddings.token_type_embeddings.weight")[0]
        self.embedding_norm = (t("embeddings.LayerNorm.weight"), t("embeddings.LayerNorm.bias"))
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            attention = p + "attention.self."
            self.layers.append(
                _Layer(
                    qkv_weight=w(
                        np.concatenate(
                            [t(attention + part + ".weight") for part in ("query", "key", "value")]
                        )
                    ),
                    qkv_bias=np.concatenate(
                        [t(attention + part + ".bias") for part in ("query", "key", "value")]
                    ),
                    attention_out_weight=w(t(p + "attention.output.dense.weight")),
                    attention_out_bias=t(p + "attention.output.dense.bias"),
                    attention_norm=(
                        t(p + "attention.output.LayerNorm.weight"),
                        t(p + "attention.output.LayerNorm.bias"),
                    ),
                    intermediate_weight=w(t(p + "intermediate.dense.weight")),
                    intermediate_bias=t(p + "intermediate.dense.bias"),
                    output_weight=w(t(p + "output.dense.weight")),
                    output_bias=t(p + "output.dense.bias"),
                    output_norm=(t(p + "output.LayerNorm.weight"), t(p + "output.LayerNorm.bias")),
                )
            )

    @property
    def dimension(self) -> int:
        return self.hidden

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> Array:
        """Unit-length float32 vectors, one row per text, in order. Texts are batched by
        token length (as sentence-transformers does) so padding stays small (length_chunks)."""
        batch = [t.lower() for t in texts] if self.lower_case else list(texts)
        encodings = self.tokenizer.encode_batch(batch)
        # Texts that tokenize alike ("Who lent Tara a notebook?" and its lower-cased task
        # form, for an uncased model) get one row of the forward pass.
        row_of: dict[tuple[int, ...], int] = {}
        rows = [row_of.setdefault(tuple(e.ids), len(row_of)) for e in encodings]
        ids = [np.asarray(key, dtype=np.int64) for key in row_of]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        out = np.empty((len(ids), self.hidden), dtype=np.float32)
        lengths = [len(ids[i]) for i in order]
        chunks = [[order[i] for i in part] for part in length_chunks(lengths, batch_size)]

        def run(chunk: list[int]) -> None:
            out[chunk] = self._forward([ids[i] for i in chunk])

        with _blas_threads(BLAS_THREADS):
            workers = min(len(chunks), self.workers)
            if workers <= 1:
                for chunk in chunks:
                    run(chunk)
            else:  # numpy releases the GIL in its kernels: batches run side by side
                with ThreadPoolExecutor(workers, thread_name_prefix="graphmem-embed") as pool:
                    list(pool.map(run, chunks))
        return out if len(ids) == len(rows) else out[rows]

    def _forward(self, token_ids: list[npt.NDArray[np.int64]]) -> Array:
        batch, length = len(token_ids), max(len(t) for t in token_ids)
        ids = np.zeros((batch, length), dtype=np.int64)
        mask = np.zeros((batch, length), dtype=np.float32)
        for row, seq in enumerate(token_ids):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        # Rows are tokens: (batch·length, hidden), so every projection is one 2-D matrix
        # product (a 3-D operand makes numpy loop over the batch, ~15× slower).
        x = self.word_embeddings[ids] + self.position_embeddings[:length] + self.token_type_zero
        x = _layer_norm(x.reshape(batch * length, self.hidden), *self.embedding_norm, self.eps)
        bias = ((1.0 - mask) * _MASKED)[:, None, None, :]  # (batch, 1, 1, length)
        head = self.hidden // self.heads
        scale = np.float32(1.0 / np.sqrt(head))
        for layer in self.layers:
            qkv = x @ layer.qkv_weight.T + layer.qkv_bias  # (tokens, 3·hidden)
            qkv = qkv.reshape(batch, length, 3, self.heads, head).transpose(2, 0, 3, 1, 4)
            query, key, value = qkv[0], qkv[1], qkv[2]  # (batch, heads, length, head)
            scores = (query @ key.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            # exp(-80) ≈ 2e-35 is still a normal float; lower scores weigh nothing next to the
            # maximum's exp(0) = 1 and would make subnormal floats (see _erf).
            np.maximum(scores, np.float32(-80.0), out=scores)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ value).transpose(0, 2, 1, 3).reshape(batch * length, self.hidden)
            attended = context @ layer.attention_out_weight.T + layer.attention_out_bias
            x = _layer_norm(x + attended, *layer.attention_norm, self.eps)
            inner = _gelu(x @ layer.intermediate_weight.T + layer.intermediate_bias)
            x = _layer_norm(
                x + inner @ layer.output_weight.T + layer.output_bias, *layer.output_norm, self.eps
            )
        x = x.reshape(batch, length, self.hidden)
        if self.cls_pooling:  # the first token's vector ([CLS]), as BGE models pool
            pooled = x[:, 0, :]
        else:
            summed = np.einsum("bld,bl->bd", x, mask)
            pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        unit: Array = (pooled / norms).astype(np.float32, copy=False)
        return unit


PADDING_BUDGET = 27
"""Padded token positions that cost what one more forward pass does: a forward streams all
the weights (~8 ms on this machine's cores) and then ~0.3 ms per token position, padded or
not (1 text of 4 tokens 9.4 ms, of 20 tokens 14.2 ms; 64 of 30 tokens 688 ms)."""


def length_chunks(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Positions of `lengths` (sorted longest first) grouped into forward passes of at most
    `batch_size` texts, each padded to its first text's length. A new pass starts when keeping
    the rest of the texts that would fit in this one would pad more positions than a pass
    costs: a query with its one-word probes runs as two passes, not as nine of its length."""
    chunks: list[list[int]] = []
    for i, length in enumerate(lengths):
        if chunks and len(chunks[-1]) < batch_size:
            chunk = chunks[-1]
            would_join = min(len(lengths) - i, batch_size - len(chunk))
            if (lengths[chunk[0]] - length) * would_join <= PADDING_BUDGET:
                chunk.append(i)
                continue
        chunks.append([i])
    return chunks


@contextlib.contextmanager
def _blas_threads(limit: int) -> Iterator[None]:
    """Limit BLAS threads for the duration (threadpoolctl; without it, nothing changes)."""
    global _controller
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _controller = False
        else:
            _controller = ThreadpoolController()
    if _controller is False:
        yield
        return
    with _controller.limit(limits=limit, user_api="blas"):
        yield


def _layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    normed: Array = centred / np.sqrt(variance + np.float32(eps)) * weight + bias
    return normed


def _gelu(x: Array) -> Array:
    """BERT's exact GELU, x·Φ(x) = x/2·(1 + erf(x/√2)), computed in place (it runs over the
    largest activations of the model, so temporaries matter)."""
    erf = _erf(x * np.float32(1.0 / np.sqrt(2.0)))
    erf += np.float32(1.0)
    erf *= x
    erf *= np.float32(0.5)
    return erf


_ERF_P = np.float32(0.3275911)
_ERF_A = [np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736)]
_ERF_A0 = np.float32(0.254829592)


def _erf(x: Array) -> Array:
    """erf by Abramowitz and Stegun 7.1.26 (|error| ≤ 1.5e-7 in exact arithmetic, ≤ 6e-7 in
    float32: below what float32 activations resolve)."""
    # Clipped at 6 (1 - erf(6) ≈ 2e-17): beyond it exp(-z²) turns subnormal, and arithmetic
    # on subnormal floats is about 100× slower on x86.
    z = np.minimum(np.abs(x), np.float32(6.0))
    t = z * _ERF_P
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = t * _ERF_A[0]
    for a in _ERF_A[1:]:
        poly += a
        poly *= t
    poly += _ERF_A0
    poly *= t
    np.multiply(z, z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    np.subtract(np.float32(1.0), poly, out=poly)
    np.copysign(poly, x, out=poly)
    return poly
