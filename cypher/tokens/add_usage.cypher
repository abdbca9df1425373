// Adds LLM tokens and recall context tokens to the space's counters (one row per space).
// Each counter is updated by one SET expression, so concurrent writers do not lose updates.
MATCH (s:Space {space: $space, id: $space})
SET s.llm_calls = coalesce(s.llm_calls, 0) + $llm_calls,
    s.llm_failures = coalesce(s.llm_failures, 0) + $llm_failures,
    s.llm_prompt_tokens = coalesce(s.llm_prompt_tokens, 0) + $llm_prompt_tokens,
    s.llm_completion_tokens = coalesce(s.llm_completion_tokens, 0) + $llm_completion_tokens,
    s.llm_estimated_calls = coalesce(s.llm_estimated_calls, 0) + $llm_estimated_calls,
    s.llm_tokens_conversation = coalesce(s.llm_tokens_conversation, 0) + $llm_tokens_conversation,
    s.llm_tokens_facts = coalesce(s.llm_tokens_facts, 0) + $llm_tokens_facts,
    s.llm_tokens_insights = coalesce(s.llm_tokens_insights, 0) + $llm_tokens_insights,
    s.llm_tokens_experience = coalesce(s.llm_tokens_experience, 0) + $llm_tokens_experience,
    s.llm_tokens_other = coalesce(s.llm_tokens_other, 0) + $llm_tokens_other,
    s.recall_calls = coalesce(s.recall_calls, 0) + $recall_calls,
    s.recall_tokens_conversation =
      coalesce(s.recall_tokens_conversation, 0) + $recall_tokens_conversation,
    s.recall_tokens_facts = coalesce(s.recall_tokens_facts, 0) + $recall_tokens_facts,
    s.recall_tokens_insights = coalesce(s.recall_tokens_insights, 0) + $recall_tokens_insights,
    s.recall_tokens_experience =
      coalesce(s.recall_tokens_experience, 0) + $recall_tokens_experience
RETURN count(s) AS updated
