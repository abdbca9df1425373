"""Labels, relationship types and migrations of the experience layer (Experience Memory
Graph, §4).

- (:Task) one task (keyed on its normalised text): text, names (the kinds of things its
  trajectories touch), embedding, intra-task insights and workflow (§4.2.1).
- (:Trajectory) one run at a task, expert or exploration: reward, the raw steps (steps_json),
  content hash.
- (:Action) one node of a trajectory's action decision graph (§4.1.2): label (INIT = 0), type,
  object, receptacle, raw text.
- (:Action)-[:NEXT_ACTION {observation, label, valid, steps}]->(:Action) the graph's edges:
  the action at the head was taken after the observation on the edge.
- (:Trajectory)-[:MATCHED_TO {cost, method, diff_json}]->(:Trajectory) exploration → the expert
  it was compared with: the edit path and common subgraph behind the task's insights.
- (:Task)-[:SIMILAR_TASK {similarity, insight, workflow}]->(:Task) cross-task insights (§4.2.2).
"""

from ..schema_types import LayerSchema, Migration, NodeLabel, RelType

TASK = "Task"
TRAJECTORY = "Trajectory"
ACTION = "Action"

SCHEMA = LayerSchema(
    layer="experience",
    labels=(
        NodeLabel(TASK, caption="text", embedding=True),
        NodeLabel(TRAJECTORY, caption="caption"),
        NodeLabel(ACTION, caption="raw"),
    ),
    relationships=(
        RelType("OF_TASK", TRAJECTORY, TASK),
        RelType("HAS_ACTION", TRAJECTORY, ACTION),
        # Parallel edges between two actions differ by the observation they carry.
        RelType("NEXT_ACTION", ACTION, ACTION, keyed=True),
        RelType("MATCHED_TO", TRAJECTORY, TRAJECTORY),
        RelType("SIMILAR_TASK", TASK, TASK),
    ),
    migrations=(
        Migration(
            400,
            "experience keys",
            queries=(
                "experience/schema_task_key",
                "experience/schema_trajectory_key",
                "experience/schema_action_key",
            ),
            unique=(TASK, TRAJECTORY, ACTION),
        ),
        Migration(401, "experience task vectors", queries=("experience/schema_task_vector",)),
    ),
)
