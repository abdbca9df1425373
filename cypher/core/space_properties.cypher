// Every property of a space's Space node (its name, creation time and token counters).
MATCH (s:Space {space: $space, id: $space})
RETURN properties(s) AS props
