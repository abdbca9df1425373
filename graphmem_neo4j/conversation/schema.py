"""Labels, relationship types and migrations of the conversation layer."""

from ..schema_types import LayerSchema

SCHEMA = LayerSchema(layer="conversation")
