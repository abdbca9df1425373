"""Graphiti → a migration plan (filled in below)."""
