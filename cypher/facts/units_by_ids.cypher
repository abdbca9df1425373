UNWIND $ids AS unit_id
MATCH (u:MemoryUnit {space: $space, id: unit_id})
RETURN u {.id, .subject, .relation, .object, .category, .context, .status, .confidence, .valid_from, .valid_to, .recorded_at, .source, .text, .subject_key, .relation_key, .object_key, .category_key, .context_key} AS unit
