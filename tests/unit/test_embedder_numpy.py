"""The numpy runtime must give the vectors sentence-transformers gives, so that stores built with
either keep working with the other (the graph records only the model name)."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from graphmem_neo4j.bert_numpy import length_chunks
from graphmem_neo4j.embedder import (
    NumpyEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
    runtime,
)
from graphmem_neo4j.errors import ConfigError
from graphmem_neo4j.model_files import query_prefix, resolve_model_dir, unsupported_by_numpy
from graphmem_neo4j.settings import Settings

TEXTS = [
    "What did Maya adopt, and when?",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "",
    "Héllo wörld, naïve café — 中文字符 and emoji 😀 mixed in.",
    "a",
    # beyond the 256-token limit: both runtimes must truncate at the same place
    " ".join(f"word{i} and more text" for i in range(200)),
    "Melanie: We took the kids camping at the beach last weekend!",
]


@pytest.fixture(scope="module")
def numpy_minilm() -> NumpyEmbedder:
    return NumpyEmbedder()


def test_numpy_vectors_equal_sentence_transformers(
    numpy_minilm: NumpyEmbedder, minilm: SentenceTransformerEmbedder
) -> None:
    ours = np.asarray(numpy_minilm.embed(TEXTS))
    reference = np.asarray(minilm.embed(TEXTS))
    assert ours.shape == reference.shape == (len(TEXTS), 384)
    assert np.abs(ours - reference).max() < 1e-5
    assert numpy_minilm.name == minilm.name == "all-MiniLM-L6-v2"


def test_a_text_embeds_the_same_alone_and_in_a_padded_batch(numpy_minilm: NumpyEmbedder) -> None:
    batch = np.asarray(numpy_minilm.embed(TEXTS))
    for i, text in enumerate(TEXTS):
        alone = np.asarray(numpy_minilm.embed([text])[0])
        assert np.abs(alone - batch[i]).max() < 1e-5, text
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)


def test_order_survives_length_sorted_batches() -> None:
    small = NumpyEmbedder(batch_size=2)
    vectors = np.asarray(small.embed(TEXTS))
    reversed_vectors = np.asarray(small.embed(TEXTS[::-1]))[::-1]
    assert np.abs(vectors - reversed_vectors).max() < 1e-5
    assert small.embed([]) == []


def test_short_texts_are_not_padded_to_a_long_ones_length() -> None:
    # a query and its one-word probes: two passes, not nine of the query's length
    assert length_chunks([20, 4, 4, 3, 3, 3, 2, 2, 2], 64) == [[0], [1, 2, 3, 4, 5, 6, 7, 8]]
    # texts of about one length share a pass, up to the batch size
    assert length_chunks([20, 18, 12], 64) == [[0, 1, 2]]
    assert length_chunks([9] * 5, 2) == [[0, 1], [2, 3], [4]]
    lengths = sorted((7 * i) % 60 + 1 for i in range(500))[::-1]
    chunks = length_chunks(lengths, 64)
    assert sorted(i for c in chunks for i in c) == list(range(500))
    assert all(len(c) <= 64 for c in chunks)
    assert sum(lengths[c[0]] * len(c) for c in chunks) < 1.1 * sum(lengths)


def test_texts_that_tokenize_alike_run_once(
    numpy_minilm: NumpyEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an uncased model: a question and its lower-cased, space-collapsed task form are one row
    numpy_minilm.embed(["warm up"])
    encoder = numpy_minilm._encoder
    rows: list[int] = []
    forward = encoder._forward

    def counting(token_ids):  # type: ignore[no-untyped-def]
        rows.append(len(token_ids))
        return forward(token_ids)

    monkeypatch.setattr(encoder, "_forward", counting)
    texts = ["Who lent Tara a notebook?", "who lent  tara a notebook?", "put a mug in the sink"]
    vectors = np.asarray(numpy_minilm.embed(texts))
    assert sum(rows) == 2
    assert np.array_equal(vectors[0], vectors[1])
    assert np.abs(vectors[2] - np.asarray(numpy_minilm.embed([texts[2]])[0])).max() < 1e-6


def test_default_runtime_is_numpy_and_needs_no_torch() -> None:
    settings = Settings()
    assert runtime(settings) == "numpy"
    assert isinstance(make_embedder(settings), NumpyEmbedder)
    assert runtime(Settings(embedder="sentence-transformers")) == "sentence-transformers"


def _copy_model(tmp_path: Path) -> Path:
    """The bundled model's directory, its configuration copied and its weights linked."""
    source = resolve_model_dir("all-MiniLM-L6-v2")
    target = tmp_path / "model"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("model.safetensors"))
    (target / "model.safetensors").symlink_to(source / "model.safetensors")
    return target


def test_a_model_numpy_cannot_run_goes_to_sentence_transformers(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    assert unsupported_by_numpy(model) == "its model_type is 'roberta', not 'bert'"
    assert runtime(Settings(embedding_model=str(model))) == "sentence-transformers"
    with pytest.raises(ConfigError, match="GRAPHMEM_EMBEDDER=sentence-transformers"):
        NumpyEmbedder(str(model)).embed(["x"])


def test_a_copied_local_model_runs_with_numpy(tmp_path: Path, numpy_minilm: NumpyEmbedder) -> None:
    model = _copy_model(tmp_path)
    assert runtime(Settings(embedding_model=str(model))) == "numpy"
    local = NumpyEmbedder(str(model))
    assert np.abs(np.asarray(local.embed(TEXTS[:2])) - numpy_minilm.embed(TEXTS[:2])).max() < 1e-6


def _pool_with(model: Path, **modes: bool) -> None:
    pooling = model / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config.update(pooling_mode_mean_tokens=False, **modes)
    pooling.write_text(json.dumps(config))


def test_cls_pooling_gives_the_vectors_sentence_transformers_gives(tmp_path: Path) -> None:
    """BGE models pool by the [CLS] token: the same weights with CLS pooling, both runtimes."""
    model = _copy_model(tmp_path)
    _pool_with(model, pooling_mode_cls_token=True)
    assert unsupported_by_numpy(model) is None
    ours = np.asarray(NumpyEmbedder(str(model)).embed(TEXTS))
    theirs = np.asarray(SentenceTransformerEmbedder(str(model)).embed(TEXTS))
    assert np.abs(ours - theirs).max() < 1e-5
    mean = np.asarray(NumpyEmbedder().embed(TEXTS))
    assert np.abs(ours - mean).max() > 0.1  # the pooling changed the vectors


def test_other_pooling_is_not_run_by_numpy(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    _pool_with(model, pooling_mode_max_tokens=True)
    assert unsupported_by_numpy(model) == (
        "its pooling is ['pooling_mode_max_tokens'], not the mean of the tokens nor the CLS token"
    )
    (model / "model.safetensors").unlink()
    assert unsupported_by_numpy(model) == "it has no model.safetensors"


def test_a_models_query_instruction_comes_from_its_directory(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    assert query_prefix(str(model)) == ""
    prompts = {"prompts": {"query": "Represent this: ", "document": ""}}
    other = tmp_path / "other"
    shutil.copytree(model, other, symlinks=True)
    (other / "config_sentence_transformers.json").write_text(json.dumps(prompts))
    assert query_prefix(str(other)) == "Represent this: "
    assert query_prefix("hash-64") == ""


def test_a_built_model_not_built_names_the_make_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path))
    with pytest.raises(ConfigError, match="make model-bge"):
        resolve_model_dir("bge-small-en-v1.5")
    built = tmp_path / "models" / "bge-small-en-v1.5"
    built.mkdir(parents=True)
    (built / "model.safetensors").write_bytes(b"")
    assert resolve_model_dir("bge-small-en-v1.5") == built
