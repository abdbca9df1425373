"""examples/batch_ingest.py, imported as a module for the tests."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def load_batch_recipe() -> ModuleType:
    """The recipe as a module, with examples/ first on sys.path so that spawned workers
    import it too. First at every call: benchmarks/ holds a batch_ingest.py as well, and a
    benchmark module loaded by another test puts benchmarks/ at the front; a spawned worker
    would then import that one and fail to find the recipe's functions."""
    path = str(EXAMPLES)
    while path in sys.path:
        sys.path.remove(path)
    sys.path.insert(0, path)
    loaded = sys.modules.get("batch_ingest")
    if loaded is not None and Path(loaded.__file__ or "").parent != EXAMPLES:
        del sys.modules["batch_ingest"]
    return importlib.import_module("batch_ingest")
