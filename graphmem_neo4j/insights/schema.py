"""Labels, relationship types and migrations of the insights layer."""

from ..schema_types import LayerSchema

SCHEMA = LayerSchema(layer="insights")
