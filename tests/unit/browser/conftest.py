from __future__ import annotations

from types import ModuleType

import pytest

from .recipe import load_batch_recipe


@pytest.fixture
def batch() -> ModuleType:
    return load_batch_recipe()
