// `graphmem browse`: the entity a view shows — the one whose id, name or alias is $entity
// (case-insensitive), else the most mentioned one.
MATCH (e:Entity {space: $space})
WHERE $entity IS NULL OR e.id = $entity OR toLower(e.name) = toLower($entity)
   OR toLower($entity) IN [a IN coalesce(e.aliases, []) | toLower(a)]
RETURN e.id AS id, e.name AS name, coalesce(e.mention_count, 0) AS size
ORDER BY size DESC, id
LIMIT 1
