"""neomodel classes for scripting against a Neo4j-backed memory.

    from graphmem_neo4j import ogm
    ogm.connect()                       # the Neo4j that GRAPHMEM_URI / GRAPHMEM_PASSWORD name
    for unit in ogm.MemoryUnit.nodes.filter(space="demo", status="active"):
        print(unit, unit.valid_from)

One class per label of every layer and one relationship definition per relationship type,
with exactly the properties the services write (tests/unit/browser/test_ogm.py and
tests/integration/browser/test_graph_contract.py hold them to the schema registry and to a
populated graph). Our `id` property is `uid` here: neomodel reserves `id`.

Reads are free. Writes are the layer services' job: superseding and outdating facts, archiving
and revising insights, forgetting turns, rebuilding experience graphs are coordinated,
multi-node changes. So `save()` stores only the few properties listed in `EDITABLE` (and only
those that changed), and refuses a change to any other property; creating or deleting nodes
and connecting or disconnecting relationships raise `ServiceOwnedWrite`. Importing this module
connects nowhere; `connect()` does.

One module because it is a declaration list, not logic: one class per label of the schema
registry, side by side as the registry lists them (neomodel resolves relationship targets by
class name, and the contract tests walk `NODE_CLASSES`); split by layer, a relationship
between layers would name a class in another file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, Self
from urllib.parse import unquote, urlsplit

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    ZeroOrMore,
)

from .browse import NODE_STYLES, render_caption
from .errors import ConfigError, GraphMemError, NotFound
from .queries import load_query
from .settings import Settings, redact_uri

if TYPE_CHECKING:
    from neo4j import Driver


class ServiceOwnedWrite(GraphMemError):
    """A script tried a write that only a layer service may make."""


def _refuse(what: str, how: str) -> NoReturn:
    raise ServiceOwnedWrite(f"{what} is owned by the layer services: {how}")


_CREATE = (
    "create memory through GraphMemory (memory.conversation.add_turns, memory.facts.add_facts, "
    "memory.insights.record_tasks / add_insight, memory.experience.add)"
)
_DELETE = (
    "forget with memory.conversation.forget, archive or revise with memory.insights.feedback, "
    "supersede facts by adding newer ones"
)


class _ServiceOwnedRelationships(ZeroOrMore):
    """Reads a relationship like ZeroOrMore; every change raises."""

    def connect(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("connecting nodes", _CREATE)

    def reconnect(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("reconnecting nodes", _CREATE)

    def replace(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("replacing relationships", _CREATE)

    def disconnect(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("disconnecting nodes", _DELETE)

    def disconnect_all(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse("disconnecting nodes", _DELETE)


def _to(target: str, rel_type: str, model: type[StructuredRel] | None = None) -> Any:
    return RelationshipTo(target, rel_type, cardinality=_ServiceOwnedRelationships, model=model)


def _from(source: str, rel_type: str, model: type[StructuredRel] | None = None) -> Any:
    return RelationshipFrom(source, rel_type, cardinality=_ServiceOwnedRelationships, model=model)


def _embedding() -> ArrayProperty:
    return ArrayProperty(FloatProperty())


def _strings() -> ArrayProperty:
    return ArrayProperty(StringProperty())


# --- relationship properties -------------------------------------------------------------------
class _Rel(StructuredRel):
    def save(self) -> NoReturn:
        _refuse("relationship properties", _CREATE)


class SessionTurn(_Rel):
    """(:Session)-[:HAS_TURN]->(:Turn): the marks that change after the turn is written (the
    turn itself is not written again: docs/performance.md, FalkorDB's orphaned vectors)."""

    complete = BooleanProperty()
    access_count = IntegerProperty()
    last_access = IntegerProperty()
    last_access_turn = IntegerProperty()


class Mention(_Rel):
    """(:Turn)-[:MENTIONS]->(:Entity)"""

    surface = StringProperty()


class Relation(_Rel):
    """(:Entity)-[:RELATES]->(:Entity), one per extracted fact (keyed by `uid`)."""

    uid = StringProperty(db_property="id")
    type = StringProperty()
    fact = StringProperty()
    turn_id = StringProperty()
    session = StringProperty()
    time = IntegerProperty()


class Support(_Rel):
    """(:MemoryUnit)-[:SUPPORTS]->(:MemoryUnit): the head depends on the tail."""

    created_at = IntegerProperty()


class QuerySimilarity(_Rel):
    """(:Query)-[:SIMILAR_QUERY]->(:Query)"""

    similarity = FloatProperty()


class Retrieval(_Rel):
    """(:Query)-[:RETRIEVED]->(:Insight): what retrieval returned when the task was recorded."""

    rank = IntegerProperty()
    score = FloatProperty()
    positive = IntegerProperty()
    negative = IntegerProperty()


class Evidence(_Rel):
    """(:Insight)-[:POSITIVE|NEGATIVE]->(:Query)"""

    at = IntegerProperty()


class InsightContext(_Rel):
    """(:Insight)-[:CONTEXTUALIZES]->(:Insight), one per mediating query (keyed by `uid`)."""

    uid = StringProperty(db_property="id")
    query_id = StringProperty()
    at = IntegerProperty()


class Decision(_Rel):
    """(:Action)-[:NEXT_ACTION]->(:Action): the head was taken after `observation`."""

    uid = StringProperty(db_property="id")
    label = IntegerProperty()
    observation = StringProperty()
    raw_observation = StringProperty()
    step = IntegerProperty()
    steps = ArrayProperty(IntegerProperty())
    valid = BooleanProperty()


class Match(_Rel):
    """(:Trajectory)-[:MATCHED_TO]->(:Trajectory): exploration → the expert run it was matched
    with; the edit path is `diff_json`."""

    common_edges = IntegerProperty()
    cost = FloatProperty()
    diff_json = StringProperty()
    edit_ops = IntegerProperty()
    method = StringProperty()
    updated_at = IntegerProperty()


class TaskSimilarity(_Rel):
    """(:Task)-[:SIMILAR_TASK]->(:Task) with the workflow the two tasks share."""

    insight = StringProperty()
    insight_source = StringProperty()
    shared_edges = IntegerProperty()
    similarity = FloatProperty()
    updated_at = IntegerProperty()
    workflow = _strings()


# --- nodes -----------------------------------------------------------------------------------
class MemoryNode(StructuredNode):
    """Every graphmem node: `space` (tenant) and `uid` (our `id`, unique per label and space)."""

    __abstract_node__ = True
    EDITABLE: ClassVar[frozenset[str]] = frozenset()
    """Properties a script may change with save(); the services own the rest."""

    space = StringProperty(required=True, index=True)
    uid = StringProperty(db_property="id", required=True)

    @classmethod
    def inflate(cls, graph_entity: Any) -> Self:
        node: Self = super().inflate(graph_entity)
        node._remember()
        return node

    def _remember(self) -> None:
        self.__dict__["_loaded"] = dict(self._values())

    def _values(self) -> dict[str, Any]:
        return {
            name: getattr(self, name, None)
            for name in self.defined_properties(aliases=False, rels=False)
        }

    def __str__(self) -> str:
        """The node's Browser caption (docker/browser-style.grass)."""
        style = NODE_STYLES.get(type(self).__label__)
        if style is None:
            return repr(self._values())
        props = {
            prop.get_db_property_name(name): getattr(self, name, None)
            for name, prop in self.defined_properties(aliases=False, rels=False).items()
        }
        return render_caption(style.caption, props)

    def changes(self) -> dict[str, Any]:
        """Properties changed since the node was loaded (attribute name → new value)."""
        loaded: dict[str, Any] = self.__dict__.get("_loaded", {})
        return {name: value for name, value in self._values().items() if loaded.get(name) != value}

    def save(self) -> Self:
        """Store changes to the properties in EDITABLE; refuse anything else."""
        if self.element_id is None or "_loaded" not in self.__dict__:
            _refuse(f"creating a {type(self).__label__}", _CREATE)
        changed = self.changes()
        owned = sorted(set(changed) - self.EDITABLE)
        if owned:
            editable = ", ".join(sorted(self.EDITABLE)) or "nothing"
            _refuse(
                f"{type(self).__label__}.{', '.join(owned)}",
                f"a script may change only {editable} here; use the layer service",
            )
        if not changed:
            return self
        from neomodel import db

        defined = self.defined_properties(aliases=False, rels=False)
        props = {
            defined[name].get_db_property_name(name): defined[name].deflate(value, self)
            for name, value in changed.items()
        }
        rows, _ = db.cypher_query(
            load_query("browse/ogm_update", "neo4j"),
            {"element_id": self.element_id, "space": self.space, "props": props},
        )
        if not rows or not rows[0][0]:
            raise NotFound(
                f"{type(self).__label__} {self.uid!r} no longer exists in {self.space!r}"
            )
        self._remember()
        return self

    def refresh(self) -> None:
        super().refresh()
        self._remember()

    def delete(self) -> NoReturn:
        _refuse(f"deleting a {type(self).__label__}", _DELETE)

    @classmethod
    def create(cls, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(f"creating a {cls.__label__}", _CREATE)

    @classmethod
    def create_or_update(cls, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(f"creating a {cls.__label__}", _CREATE)

    @classmethod
    def get_or_create(cls, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(f"creating a {cls.__label__}", _CREATE)


class Space(MemoryNode):
    """A memory space (tenant); `uid` is its name. `speakers`: the conversation layer's
    participants. The counters are the space's token accounting (graphmem_neo4j/tokens.py,
    `graphmem stats`)."""

    created_at = IntegerProperty()
    speakers = _strings()
    llm_calls = IntegerProperty()
    llm_failures = IntegerProperty()
    llm_prompt_tokens = IntegerProperty()
    llm_completion_tokens = IntegerProperty()
    llm_estimated_calls = IntegerProperty()
    llm_tokens_conversation = IntegerProperty()
    llm_tokens_facts = IntegerProperty()
    llm_tokens_insights = IntegerProperty()
    llm_tokens_experience = IntegerProperty()
    llm_tokens_other = IntegerProperty()
    recall_calls = IntegerProperty()
    recall_tokens_conversation = IntegerProperty()
    recall_tokens_facts = IntegerProperty()
    recall_tokens_insights = IntegerProperty()
    recall_tokens_experience = IntegerProperty()


# conversation layer
class Session(MemoryNode):
    created_at = IntegerProperty()
    first_time = IntegerProperty()
    last_time = IntegerProperty()
    last_turn = IntegerProperty()
    speakers = _strings()
    term_total = FloatProperty()
    turn_count = IntegerProperty()

    has_turn = _to("Turn", "HAS_TURN", SessionTurn)


class Turn(MemoryNode):
    EDITABLE = frozenset({"metadata_json"})

    session = StringProperty()
    seq = IntegerProperty()
    speaker = StringProperty()
    text = StringProperty()
    time = IntegerProperty()
    embedding = _embedding()
    n_terms = IntegerProperty()
    stems = StringProperty()
    metadata_json = StringProperty()
    content_hash = StringProperty()
    context_embedded = BooleanProperty()  # the vector holds the turn before it too
    created_at = IntegerProperty()
    created_turn = IntegerProperty()
    access_count = IntegerProperty()  # as created; later accesses count on HAS_TURN
    last_access_turn = IntegerProperty()

    in_session = _from("Session", "HAS_TURN", SessionTurn)
    next = _to("Turn", "NEXT")
    previous = _from("Turn", "NEXT")
    mentions = _to("Entity", "MENTIONS", Mention)


class Entity(MemoryNode):
    EDITABLE = frozenset({"type"})

    name = StringProperty()
    name_key = StringProperty()
    type = StringProperty()
    aliases = _strings()
    embedding = _embedding()
    mention_count = IntegerProperty()
    first_turn = StringProperty()
    created_at = IntegerProperty()
    created_turn = IntegerProperty()
    last_turn = IntegerProperty()
    access_count = IntegerProperty()
    last_access = IntegerProperty()
    last_access_turn = IntegerProperty()

    mentioned_in = _from("Turn", "MENTIONS", Mention)
    relates = _to("Entity", "RELATES", Relation)
    related_from = _from("Entity", "RELATES", Relation)


class ForgetRun(MemoryNode):
    at_turn = IntegerProperty()
    created_at = IntegerProperty()
    nodes_removed = IntegerProperty()
    edges_removed = IntegerProperty()
    bytes_removed = IntegerProperty()
    threshold = FloatProperty()
    archived = BooleanProperty()


class Forgotten(MemoryNode):
    """A pruned Turn or Entity, kept so `graphmem restore` can bring it back."""

    run_id = StringProperty()
    label = StringProperty()
    node_id = StringProperty()
    summary = StringProperty()
    importance = FloatProperty()
    payload_json = StringProperty()
    forgotten_at = IntegerProperty()


# facts layer
class Subject(MemoryNode):
    name = StringProperty()
    embedding = _embedding()
    created_at = IntegerProperty()

    subject_of = _to("MemoryUnit", "SUBJECT_OF")


class Category(MemoryNode):
    name = StringProperty()
    embedding = _embedding()
    created_at = IntegerProperty()

    category_of = _to("MemoryUnit", "CATEGORY_OF")


class Context(MemoryNode):
    """A fact's context ('in the evening')."""

    name = StringProperty()
    created_at = IntegerProperty()

    context_of = _to("MemoryUnit", "CONTEXT_OF")


class MemoryUnit(MemoryNode):
    """One asserted fact: status active | superseded | outdated | pending."""

    EDITABLE = frozenset({"source"})

    subject = StringProperty()
    subject_key = StringProperty()
    relation = StringProperty()
    relation_key = StringProperty()
    object = StringProperty()
    object_key = StringProperty()
    category = StringProperty()
    category_key = StringProperty()
    context = StringProperty()
    context_key = StringProperty()
    confidence = FloatProperty()
    status = StringProperty()
    status_changed_at = IntegerProperty()
    recorded_at = IntegerProperty()
    valid_from = IntegerProperty()
    valid_to = IntegerProperty()
    source = StringProperty()
    text = StringProperty()
    embedding = _embedding()

    subjects = _from("Subject", "SUBJECT_OF")
    categories = _from("Category", "CATEGORY_OF")
    contexts = _from("Context", "CONTEXT_OF")
    supports = _to("MemoryUnit", "SUPPORTS", Support)
    supported_by = _from("MemoryUnit", "SUPPORTS", Support)
    supersedes = _to("MemoryUnit", "SUPERSEDES")
    superseded_by = _from("MemoryUnit", "SUPERSEDES")
    contests = _to("MemoryUnit", "CONTESTS")
    contested_by = _from("MemoryUnit", "CONTESTS")


# insights layer
class Query(MemoryNode):
    """A recorded task (status resolved | failed)."""

    text = StringProperty()
    status = StringProperty()
    answer = StringProperty()
    feedback = StringProperty()
    content_hash = StringProperty()
    task_key = StringProperty()  # its task structure (task_similarity); "" when none is read
    task_type = StringProperty()  # the caller's name for its kind, when one was given
    embedding = _embedding()
    step_count = IntegerProperty()
    retrieval_k = IntegerProperty()
    retrieval_b = IntegerProperty()
    retrieval_lambda = FloatProperty()
    plan_json = StringProperty()
    created_at = IntegerProperty()
    recorded_at = IntegerProperty()
    plan_at = IntegerProperty()
    feedback_at = IntegerProperty()

    similar_query = _to("Query", "SIMILAR_QUERY", QuerySimilarity)
    has_interaction = _to("InteractionStep", "HAS_INTERACTION")
    retrieved = _to("Insight", "RETRIEVED", Retrieval)
    supported_insights = _from("Insight", "POSITIVE", Evidence)
    contradicted_insights = _from("Insight", "NEGATIVE", Evidence)


class InteractionStep(MemoryNode):
    query_id = StringProperty()
    position = IntegerProperty()
    role = StringProperty()
    action = StringProperty()
    observation = StringProperty()

    in_query = _from("Query", "HAS_INTERACTION")
    next_interaction = _to("InteractionStep", "NEXT_INTERACTION")


class Insight(MemoryNode):
    """A distilled insight; `active` is false once archived or revised."""

    text = StringProperty()
    active = BooleanProperty()
    origin = StringProperty()
    embedding = _embedding()
    created_at = IntegerProperty()
    updated_at = IntegerProperty()
    archived_at = IntegerProperty()

    positive = _to("Query", "POSITIVE", Evidence)
    negative = _to("Query", "NEGATIVE", Evidence)
    contextualizes = _to("Insight", "CONTEXTUALIZES", InsightContext)
    revised_from = _to("Insight", "REVISED_FROM")
    revisions = _from("Insight", "REVISED_FROM")
    edits = _from("InsightEdit", "EDIT_OF")
    retrieved_by = _from("Query", "RETRIEVED", Retrieval)


class InsightEdit(MemoryNode):
    """One controller or manual edit of an insight: who, what, on which query, why."""

    insight_id = StringProperty()
    operation = StringProperty()
    query_id = StringProperty()
    actor = StringProperty()
    requested_by = StringProperty()
    reason = StringProperty()
    related_id = StringProperty()
    at = IntegerProperty()

    edit_of = _to("Insight", "EDIT_OF")


# experience layer
class Task(MemoryNode):
    text = StringProperty()
    names = _strings()
    embedding = _embedding()
    has_expert = BooleanProperty()
    insights = _strings()
    workflow = _strings()
    insight_source = StringProperty()
    trajectories = IntegerProperty()
    created_at = IntegerProperty()
    updated_at = IntegerProperty()

    similar_task = _to("Task", "SIMILAR_TASK", TaskSimilarity)
    runs = _from("Trajectory", "OF_TASK")


class Trajectory(MemoryNode):
    """One run at a task (kind expert | exploration) with its raw steps."""

    EDITABLE = frozenset({"metadata_json"})

    source_id = StringProperty()
    kind = StringProperty()
    task = StringProperty()
    task_id = StringProperty()
    reward = FloatProperty()
    initial_observation = StringProperty()
    steps_json = StringProperty()
    n_steps = IntegerProperty()
    metadata_json = StringProperty()
    content_hash = StringProperty()
    caption = StringProperty()
    created_at = IntegerProperty()
    updated_at = IntegerProperty()

    of_task = _to("Task", "OF_TASK")
    has_action = _to("Action", "HAS_ACTION")
    matched_to = _to("Trajectory", "MATCHED_TO", Match)


class Action(MemoryNode):
    """A node of an action decision graph: (type, object, receptacle); label 0 is INIT."""

    label = IntegerProperty()
    type = StringProperty()
    object = StringProperty()
    receptacle = StringProperty()
    key = StringProperty()
    raw = StringProperty()
    trajectory_id = StringProperty()

    in_trajectory = _from("Trajectory", "HAS_ACTION")
    next_action = _to("Action", "NEXT_ACTION", Decision)


class StoreItem(MemoryNode):
    namespace = _strings()
    ns_path = StringProperty()
    depth = IntegerProperty()
    key = StringProperty()
    value_json = StringProperty()
    text = StringProperty()
    embedding = _embedding()
    created_at = IntegerProperty()
    updated_at = IntegerProperty()


NODE_CLASSES: tuple[type[MemoryNode], ...] = (
    Space,
    Session,
    Turn,
    Entity,
    ForgetRun,
    Forgotten,
    Subject,
    Category,
    Context,
    MemoryUnit,
    Query,
    InteractionStep,
    Insight,
    InsightEdit,
    Task,
    Trajectory,
    Action,
    StoreItem,
)


def neo4j_driver(settings: Settings) -> Driver:
    """A driver for the Neo4j graphmem is configured for; ConfigError for any other engine."""
    target = settings.engine()
    if target.engine != "neo4j" or target.uri is None:
        raise ConfigError(
            "the OGM needs Neo4j: set GRAPHMEM_URI=neo4j://host:7687 (and GRAPHMEM_PASSWORD); "
            "the embedded FalkorDB is read with GraphMemory and its layer services"
        )
    import neo4j

    parts = urlsplit(target.uri)
    user = unquote(parts.username) if parts.username else settings.user
    if settings.password is not None:
        password: str | None = settings.password.get_secret_value()
    else:
        password = unquote(parts.password) if parts.password else None
    auth = (user, password) if password is not None else None
    return neo4j.GraphDatabase.driver(redact_uri(target.uri), auth=auth)


def connect(settings: Settings | None = None) -> None:
    """Point neomodel at graphmem's Neo4j (GRAPHMEM_URI, GRAPHMEM_USER, GRAPHMEM_PASSWORD,
    GRAPHMEM_DATABASE); the database defaults to `neo4j`."""
    from neomodel import db, get_config

    settings = settings if settings is not None else Settings()
    driver = neo4j_driver(settings)
    get_config().database_name = settings.database or "neo4j"
    db.set_connection(driver=driver)
