// Which of these MemoryUnits a space already holds, with what validity: a re-run writes only
// the missing ones and closes the ones the source has closed since.
UNWIND $ids AS id
MATCH (u:MemoryUnit {space: $space, id: id})
RETURN u.id AS id, u.status AS status, u.valid_to AS valid_to
