"""CLI commands of the experience layer."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this layer's commands to the `graphmem` app."""
