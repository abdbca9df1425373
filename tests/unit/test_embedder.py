import math

import pytest

from graphmem_neo4j.embedder import HashEmbedder, SentenceTransformerEmbedder
from graphmem_neo4j.errors import ConfigError


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_hash_embedder_is_deterministic_and_unit_length() -> None:
    e = HashEmbedder(128)
    first, again = e.embed(["Caroline went to the support group"] * 2)
    assert first == again
    assert math.isclose(math.sqrt(sum(x * x for x in first)), 1.0, rel_tol=1e-9)
    assert e.dimension == 128 and e.name == "hash-128"


def test_hash_embedder_relates_overlapping_texts() -> None:
    e = HashEmbedder(256)
    a, b, c = e.embed(["support group meeting", "the support group", "painting a sunrise"])
    assert cosine(a, b) > cosine(a, c)


def test_unknown_model_is_refused_rather_than_downloaded() -> None:
    with pytest.raises(ConfigError, match="never downloads"):
        SentenceTransformerEmbedder("some-org/some-model").embed(["x"])


def test_default_model_loads_offline(minilm: SentenceTransformerEmbedder) -> None:
    a, b, c = minilm.embed(
        ["I adopted a puppy last week", "We got a new dog recently", "The stock market fell"]
    )
    assert minilm.dimension == len(a) == 384
    assert cosine(a, b) > cosine(a, c) + 0.2
