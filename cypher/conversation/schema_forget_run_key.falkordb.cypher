CREATE INDEX FOR (n:ForgetRun) ON (n.space, n.id)
