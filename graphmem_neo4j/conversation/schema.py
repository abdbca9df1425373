"""Labels, relationship types and migrations of the conversation layer.

(:Session)-[:HAS_TURN]->(:Turn)-[:NEXT]->(:Turn) keeps the conversation itself; turns
-[:MENTIONS]-> (:Entity) -[:RELATES {type, fact, turn_id, time}]-> (:Entity) is the graph the
paper extracts from it. (:ForgetRun) and (:Forgotten) are the audit trail of forgetting.
"""

from ..schema_types import LayerSchema, Migration, NodeLabel, RelType
from .stems import backfill_stems

SESSION = "Session"
TURN = "Turn"
ENTITY = "Entity"
FORGET_RUN = "ForgetRun"
FORGOTTEN = "Forgotten"

SCHEMA = LayerSchema(
    layer="conversation",
    labels=(
        NodeLabel(SESSION, caption="id"),
        NodeLabel(TURN, caption="text", embedding=True),
        NodeLabel(ENTITY, caption="name", embedding=True),
        NodeLabel(FORGET_RUN, caption="id"),
        NodeLabel(FORGOTTEN, caption="summary"),
    ),
    relationships=(
        RelType("HAS_TURN", SESSION, TURN),
        RelType("NEXT", TURN, TURN),
        RelType("MENTIONS", TURN, ENTITY),
        RelType("RELATES", ENTITY, ENTITY, keyed=True),
    ),
    migrations=(
        Migration(
            100,
            "conversation keys",
            queries=(
                "conversation/schema_session_key",
                "conversation/schema_turn_key",
                "conversation/schema_entity_key",
                "conversation/schema_forget_run_key",
                "conversation/schema_forgotten_key",
                "conversation/schema_entity_name",
            ),
            unique=(SESSION, TURN, ENTITY, FORGET_RUN, FORGOTTEN),
        ),
        Migration(
            101,
            "conversation vector indexes",
            queries=("conversation/schema_turn_vector", "conversation/schema_entity_vector"),
        ),
        Migration(
            102, "conversation full-text index", queries=("conversation/schema_turn_fulltext",)
        ),
        Migration(
            103, "conversation session clocks", queries=("conversation/schema_session_clock",)
        ),
        Migration(
            104, "conversation space speakers", queries=("conversation/schema_space_speakers",)
        ),
        Migration(
            105,
            "conversation full-text entries of Snowball stems",
            queries=("conversation/schema_turn_stems", "conversation/schema_drop_turn_text"),
            data=backfill_stems,
        ),
    ),
)
