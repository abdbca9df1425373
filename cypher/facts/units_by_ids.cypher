UNWIND $ids AS unit_id
MATCH (u:MemoryUnit {space: $space, id: unit_id})
RETURN u {.*, embedding: null} AS unit
