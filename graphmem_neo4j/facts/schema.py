"""Labels, relationship types and migrations of the facts layer.

The hierarchical graph memory of HiGram (§3.1, eq. 1-2):

- (:MemoryUnit) one asserted fact: subject, relation, object, category, context (and their
  normalised `*_key`s), confidence, status (active|superseded|outdated|pending), transaction
  time `recorded_at`, valid time `valid_from`/`valid_to`, source, text, embedding.
- (:Subject), (:Category), (:Context): the upper-level nodes (V^sub, V^cat, V^ctx); `id` is the
  normalised key, `name` the first spelling seen. Subjects and categories carry an embedding of
  their name for vector anchoring.
- A MicroGraph (§3.2, eq. 3-4) is the (Subject, Category) pair; it is a region, not a node.
"""

from ..schema_types import LayerSchema, Migration, NodeLabel, RelType

UNIT = "MemoryUnit"
SUBJECT = "Subject"
CATEGORY = "Category"
CONTEXT = "Context"

SCHEMA = LayerSchema(
    layer="facts",
    labels=(
        NodeLabel(UNIT, caption="text", embedding=True),
        NodeLabel(SUBJECT, caption="name", embedding=True),
        NodeLabel(CATEGORY, caption="name", embedding=True),
        NodeLabel(CONTEXT, caption="name"),
    ),
    relationships=(
        # E^sub, E^obj, E^ctx of eq. 2: upper-level node to its MemoryUnits.
        RelType("SUBJECT_OF", SUBJECT, UNIT),
        RelType("CATEGORY_OF", CATEGORY, UNIT),
        RelType("CONTEXT_OF", CONTEXT, UNIT),
        # E^dep of eq. 2: from the supporting unit to the unit that depends on it (§3.3).
        RelType("SUPPORTS", UNIT, UNIT),
        # Version chain: the newer unit points at the one it replaced.
        RelType("SUPERSEDES", UNIT, UNIT),
        # A pending (rejected) claim points at the well-supported unit it contradicted.
        RelType("CONTESTS", UNIT, UNIT),
    ),
    migrations=(
        Migration(
            200,
            "facts keys",
            queries=(
                "facts/schema_unit_key",
                "facts/schema_subject_key",
                "facts/schema_category_key",
                "facts/schema_context_key",
            ),
            unique=(UNIT, SUBJECT, CATEGORY, CONTEXT),
        ),
        Migration(
            201,
            "facts vector indexes",
            queries=(
                "facts/schema_unit_vector",
                "facts/schema_subject_vector",
                "facts/schema_category_vector",
            ),
        ),
    ),
)
