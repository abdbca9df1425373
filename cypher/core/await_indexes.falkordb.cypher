RETURN 1 AS ready
