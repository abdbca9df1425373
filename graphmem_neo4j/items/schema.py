"""Labels and migrations of the items layer.

- (:StoreItem) one value of a key-value namespace (integrations/langgraph.py): `namespace`
  (a list of strings), `ns_path` (its parts joined, each followed by U+001F, so a prefix of
  the namespace is a prefix of the string), `depth`, `key`, `value_json` (the value as JSON),
  `text` (what was embedded), `embedding`, `created_at`, `updated_at`. `id` is the JSON of
  [*namespace, key].
"""

from ..schema_types import LayerSchema, Migration, NodeLabel

ITEM = "StoreItem"

SCHEMA = LayerSchema(
    layer="items",
    labels=(NodeLabel(ITEM, caption="key", embedding=True),),
    migrations=(
        Migration(
            600,
            "store items",
            queries=(
                "items/schema_item_key",
                "items/schema_item_vector",
                "space_index/store_item",
            ),
            unique=(ITEM,),
        ),
    ),
)
