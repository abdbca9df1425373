"""Labels, relationship types and migrations of the facts layer."""

from ..schema_types import LayerSchema

SCHEMA = LayerSchema(layer="facts")
