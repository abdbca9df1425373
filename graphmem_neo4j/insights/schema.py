"""Labels, relationship types and migrations of the insights layer.

The query graph and the insight graph of EvoGraph-Mem (§3.1-3.2), on G-Memory's design:

- (:Query) one recorded task: text, status (resolved|failed), embedding, times; the controller's
  stored plan and when feedback was applied.
- (:InteractionStep) one step of a task's interaction graph: role, action, observation, index.
- (:Insight) a distilled insight: text, active flag (z_k, eq. 6), created/updated/archived times,
  embedding.
- (:InsightEdit) one audit record: which insight, which operation, on which query, who, when, why.
"""

from ..schema_types import LayerSchema, Migration, NodeLabel, RelType

QUERY = "Query"
STEP = "InteractionStep"
INSIGHT = "Insight"
EDIT = "InsightEdit"

SCHEMA = LayerSchema(
    layer="insights",
    labels=(
        NodeLabel(QUERY, caption="text", embedding=True),
        NodeLabel(STEP, caption="action"),
        NodeLabel(INSIGHT, caption="text", embedding=True),
        NodeLabel(EDIT, caption="operation"),
    ),
    relationships=(
        # E_q of eq. 1: a query to its nearest earlier queries.
        RelType("SIMILAR_QUERY", QUERY, QUERY),
        # G_inter of eq. 1: the query's steps, and their order.
        RelType("HAS_INTERACTION", QUERY, STEP),
        RelType("NEXT_INTERACTION", STEP, STEP),
        # Omega+ and Omega- of eq. 6.
        RelType("POSITIVE", INSIGHT, QUERY),
        RelType("NEGATIVE", INSIGHT, QUERY),
        # E_i of eq. 5/18: (a)-[:CONTEXTUALIZES {query_id}]->(b); one edge per mediating query.
        RelType("CONTEXTUALIZES", INSIGHT, INSIGHT, keyed=True),
        # eq. 14-15: the revised node points at the node it replaced.
        RelType("REVISED_FROM", INSIGHT, INSIGHT),
        # What retrieval returned for a task when it was recorded (the controller judges these).
        RelType("RETRIEVED", QUERY, INSIGHT),
        RelType("EDIT_OF", EDIT, INSIGHT),
    ),
    migrations=(
        Migration(
            300,
            "insights keys",
            queries=(
                "insights/schema_query_key",
                "insights/schema_step_key",
                "insights/schema_insight_key",
                "insights/schema_edit_key",
            ),
            unique=(QUERY, STEP, INSIGHT, EDIT),
        ),
        Migration(
            301,
            "insights vector indexes",
            queries=("insights/schema_query_vector", "insights/schema_insight_vector"),
        ),
    ),
)
