"""The insights memory layer."""
