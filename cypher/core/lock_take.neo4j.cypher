// A space's writer lease (write_lock.py). The first SET takes the node's write lock, so the
// holder is read only after any concurrent taker committed: two takers never both win.
MERGE (l:GraphMemLock {id: $key})
SET l.contended_at = $now
WITH l
WITH l, l.holder IS NULL OR l.expires_at < $now AS free
SET l.holder = CASE WHEN free THEN $token ELSE l.holder END,
    l.expires_at = CASE WHEN free THEN $now + $expiry_ms ELSE l.expires_at END
RETURN l.holder AS holder
