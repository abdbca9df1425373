"""Adapters to agent frameworks; each imports its framework only when it is used."""
