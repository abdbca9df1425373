"""examples/batch_ingest.py, imported as a module for the tests."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def load_batch_recipe() -> ModuleType:
    """The recipe as a module, with examples/ on sys.path so spawned workers import it too."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module("batch_ingest")
