// The token counters of one space (null until something was counted).
MATCH (s:Space {space: $space, id: $space})
RETURN s.llm_calls AS llm_calls, s.llm_failures AS llm_failures,
       s.llm_prompt_tokens AS llm_prompt_tokens,
       s.llm_completion_tokens AS llm_completion_tokens,
       s.llm_estimated_calls AS llm_estimated_calls,
       s.llm_tokens_conversation AS llm_tokens_conversation,
       s.llm_tokens_facts AS llm_tokens_facts,
       s.llm_tokens_insights AS llm_tokens_insights,
       s.llm_tokens_experience AS llm_tokens_experience,
       s.llm_tokens_other AS llm_tokens_other,
       s.recall_calls AS recall_calls,
       s.recall_tokens_conversation AS recall_tokens_conversation,
       s.recall_tokens_facts AS recall_tokens_facts,
       s.recall_tokens_insights AS recall_tokens_insights,
       s.recall_tokens_experience AS recall_tokens_experience
