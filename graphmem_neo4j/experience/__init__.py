"""The experience memory layer."""
