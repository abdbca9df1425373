"""The conversation memory layer."""
