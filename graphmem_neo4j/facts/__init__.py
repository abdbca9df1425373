"""The facts memory layer."""
