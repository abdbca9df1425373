"""Labels, relationship types and migrations of the experience layer."""

from ..schema_types import LayerSchema

SCHEMA = LayerSchema(layer="experience")
