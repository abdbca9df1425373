"""Labels every space has, and the bookkeeping nodes that live outside spaces."""

from .schema_types import LayerSchema, Migration, NodeLabel

SYSTEM_LABELS = ("GraphMemMeta", "GraphMemMigration", "GraphMemLock", "GraphMemKey")
"""Schema bookkeeping, writer leases and the API keys of `graphmem serve` (keys.py): no
`space`, never exported, not counted in stats."""

SCHEMA = LayerSchema(
    layer="core",
    labels=(NodeLabel("Space", caption="id"),),
    migrations=(Migration(1, "space keys", queries=("core/schema_space_key",), unique=("Space",)),),
)
