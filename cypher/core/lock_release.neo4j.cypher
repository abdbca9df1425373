// Give up a lease if this token still holds it (compare-and-delete).
MATCH (l:GraphMemLock {id: $key})
WHERE l.holder = $token
SET l.holder = null, l.expires_at = null
RETURN count(l) AS released
