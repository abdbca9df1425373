"""One batch of facts into the graph, and HiGram's coordinated update of one fact (§3.3).

Facts that open a slot nothing else touches are written in batches; every other fact is
localised (§3.2), written as `pending`, and the statuses it changes (its slot's versions,
then the dependents of every unit whose status changes, eq. 10) are decided in rewrite.py
and flipped in one statement (`facts/apply_statuses`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..schema import now_ms
from .config import FactConfig
from .keys import terms
from .localise import Localiser
from .models import Fact, FactOutcome, MemoryUnit, TempUnit, UnitStatus, UpdatePolicy
from .results import Localisation
from .rewrite import StatusChange, plan_dependents, plan_relation_level, plan_slot
from .writes import Slot, UnitWrites, unit_row

Progress = Callable[[int], None]


class Updater:
    def __init__(self, writes: UnitWrites, config: FactConfig) -> None:
        self.writes = writes
        self.config = config

    @property
    def localiser(self) -> Localiser:
        return Localiser(self.writes.store, self.config.localise)

    def ingest(
        self,
        space: str,
        batch: Sequence[Fact],
        existing: Mapping[str, MemoryUnit],
        vectors: Mapping[str, list[float]],
        on_progress: Progress | None,
    ) -> list[FactOutcome]:
        policy = self.config.policy
        slots = [
            (
                f.subject_key,
                f.relation_key,
                None if policy == UpdatePolicy.RELATION_LEVEL else f.context_key,
            )
            for f in batch
        ]
        outcomes: dict[int, FactOutcome] = {}
        # Facts that open a slot nothing else touches need no rewrite: write them in batches,
        # active at once. A fact that depends only on such facts earlier in the batch is one
        # of them (its supporters are active, so it is: `validity`). Written `pending` and
        # flipped instead, every such unit was written twice, and FalkorDB 4.16 keeps a stale
        # vector-index entry per write (docs/design-notes.md, "FalkorDB's stale vector entries").
        fast: list[int] = []
        if policy == UpdatePolicy.APPEND_ONLY:
            fast = list(range(len(batch)))
        else:
            occupied = self.writes.occupied_slots(space, slots, policy)
            counts: dict[Slot, int] = {}
            for slot in slots:
                counts[slot] = counts.get(slot, 0) + 1
            opened: set[str] = set()
            for i, f in enumerate(batch):
                if (
                    f.id not in existing
                    and counts[slots[i]] == 1
                    and not occupied[i]
                    and all(d in opened for d in f.depends_on)
                ):
                    fast.append(i)
                    opened.add(f.id)
        fast_set = set(fast)
        for start in range(0, len(fast), self.writes.batch_size):
            chunk = fast[start : start + self.writes.batch_size]
            rows = [unit_row(batch[i], UnitStatus.ACTIVE, vectors) for i in chunk]
            self.writes.write_units(space, rows)
            # a supporter is in this chunk or an earlier one, so it is stored by now
            self.writes.write_supports(
                space, [(d, batch[i].id) for i in chunk for d in batch[i].depends_on]
            )
            for i in chunk:
                action = "unchanged" if batch[i].id in existing else "created"
                outcomes[i] = FactOutcome(batch[i].id, batch[i].line, action, UnitStatus.ACTIVE)
            if on_progress is not None:
                on_progress(len(chunk))
        for i, fact in enumerate(batch):
            if i in fast_set:
                continue
            if policy == UpdatePolicy.RELATION_LEVEL:
                outcomes[i] = self.update_relation_level(space, fact, existing, vectors)
            else:
                outcomes[i] = self.update(space, fact, existing, vectors)
            if on_progress is not None:
                on_progress(1)
        return [outcomes[i] for i in range(len(batch))]

    @staticmethod
    def temp_unit(fact: Fact, vectors: Mapping[str, list[float]]) -> TempUnit:
        """The temporary unit of an update (§3.2), anchored on its own subject."""
        return TempUnit(
            subjects={fact.subject_key: 1.0},
            relation_key=fact.relation_key,
            relation_terms=terms(fact.relation),
            category_key=fact.category_key,
            context_key=fact.context_key,
            moment=fact.valid_from,
            text=fact.text,
            embedding=tuple(vectors[fact.text]),
            object_key=fact.object_key,
        )

    def localise_fact(
        self, space: str, fact: Fact, vectors: Mapping[str, list[float]]
    ) -> Localisation:
        """Localisation of an update (§3.2). Its subject anchor is exact: a slot is (subject,
        relation, context) by normalised key, so Subject nodes with a close name (the vector
        anchors questions use) are never read or rewritten by an update. Its category is
        anchored exactly and by vector match, which only ranks the subject's MicroGraphs."""
        categories = self.localiser.category_anchors(
            space, fact.category_key, vectors[fact.category]
        )
        return self.localiser.localise(
            space, [self.temp_unit(fact, vectors)], categories=categories
        )

    def update(
        self,
        space: str,
        fact: Fact,
        existing: Mapping[str, MemoryUnit],
        vectors: Mapping[str, list[float]],
    ) -> FactOutcome:
        """Coordinated rewriting (§3.3) of one fact: localise, write the new unit as pending,
        decide every status change, flip them in one statement."""
        now = now_ms()
        localisation = self.localise_fact(space, fact, vectors)
        existed = fact.id in existing
        # Step 1: the new unit and its dependency edges; `pending` keeps it out of the current
        # view until the flip.
        if not existed:
            self.writes.write_units(space, [unit_row(fact, UnitStatus.PENDING, vectors)])
        self.writes.write_supports(space, self._support_edges(space, fact))
        # Step 2: intra-unit rewriting of the slot.
        stored = self.writes.slot_versions(space, [fact.key])[0]
        plan = plan_slot(stored, margin=self.config.margin, accept=self.config.accept, now=now)
        before = {s.unit.id: s.unit.status for s in stored}
        changes = {c.id: c for c in plan.changes}
        frontier = [
            c.id
            for c in plan.changes
            if (before.get(c.id) == UnitStatus.ACTIVE) != (c.status == UnitStatus.ACTIVE)
        ]
        frontier += [old for old in plan.transfers if old not in frontier]
        # Step 3: inter-unit rewriting, following dependents while statuses keep changing.
        transfer_edges, dependents_read = self._inter_unit(
            space, frontier, plan.transfers, changes, now
        )
        units_read = localisation.stats.units_read + len(stored) + dependents_read
        # Step 4: carried-over dependency edges, then every status at once.
        self.writes.write_supports(space, transfer_edges)
        self.writes.apply(space, list(changes.values()))
        final = {s.unit.id: s.unit.status for s in stored}
        final.update({cid: c.status for cid, c in changes.items()})
        status = final.get(fact.id, UnitStatus.PENDING)
        if existed:
            action = "unchanged"
        elif status == UnitStatus.PENDING:
            action = "pending"
        elif status == UnitStatus.SUPERSEDED:
            action = "historical"
        else:
            action = "created"
        path = localisation.best
        return FactOutcome(
            id=fact.id,
            line=fact.line,
            action=action,
            status=status,
            superseded=tuple(
                c.id
                for c in changes.values()
                if c.status == UnitStatus.SUPERSEDED and c.id != fact.id
            ),
            outdated=tuple(c.id for c in changes.values() if c.status == UnitStatus.OUTDATED),
            reactivated=tuple(
                c.id
                for c in changes.values()
                if c.status == UnitStatus.ACTIVE
                and c.id != fact.id
                and before.get(c.id) != UnitStatus.ACTIVE
            ),
            evidence_path=tuple(u.id for u in path.units) if path else (),
            units_read=units_read,
            localisation=localisation.stats,
        )

    def _inter_unit(
        self,
        space: str,
        frontier: list[str],
        transfers: Mapping[str, str],
        changes: dict[str, StatusChange],
        now: int,
    ) -> tuple[list[tuple[str, str]], int]:
        """Inter-unit rewriting (§3.3, eq. 10): read the dependents of the units whose status
        changed, decide theirs, and go on from those that change (adding to `changes`).
        Returns the carried-over SUPPORTS edges to write and how many units were read."""
        effective = {c.id: (c.status, c.valid_to) for c in changes.values()}
        edges: list[tuple[str, str]] = []
        read = 0
        for _ in range(self.config.max_cascade):
            if not frontier:
                break
            rows = self.writes.dependents(space, frontier)
            read += len(rows)
            extra: dict[str, list[str]] = {}
            for d in rows:
                for ref in d.supporters:
                    if ref.id in transfers:
                        extra.setdefault(d.unit.id, []).append(transfers[ref.id])
                        edges.append((transfers[ref.id], d.unit.id))
            frontier = []
            for change in plan_dependents(
                rows, effective=effective, extra_supporters=extra, now=now
            ):
                if changes.get(change.id) == change:
                    continue
                changes[change.id] = change
                effective[change.id] = (change.status, change.valid_to)
                frontier.append(change.id)
        return sorted(set(edges)), read

    def _support_edges(self, space: str, fact: Fact) -> list[tuple[str, str]]:
        """depends_on as edges, plus edges from the units that re-assert a supporter's value
        since it was superseded (so the arrival order of a re-assertion does not matter)."""
        edges = [(d, fact.id) for d in fact.depends_on]
        if fact.depends_on:
            edges += [(head, fact.id) for head in self.writes.value_heads(space, fact.depends_on)]
        return sorted(set(edges))

    def update_relation_level(
        self,
        space: str,
        fact: Fact,
        existing: Mapping[str, MemoryUnit],
        vectors: Mapping[str, list[float]],
    ) -> FactOutcome:
        """Baseline: overwrite whatever is active for (subject, relation)."""
        existed = fact.id in existing
        if not existed:
            self.writes.write_units(space, [unit_row(fact, UnitStatus.PENDING, vectors)])
            self.writes.write_supports(space, [(d, fact.id) for d in fact.depends_on])
        stored = self.writes.slot_versions(
            space, [(fact.subject_key, fact.relation_key, None)], any_context=True
        )[0]
        changes = plan_relation_level(stored, fact.id, at=fact.valid_from)
        self.writes.apply(space, changes)
        return FactOutcome(
            id=fact.id,
            line=fact.line,
            action="unchanged" if existed else "created",
            status=UnitStatus.ACTIVE,
            superseded=tuple(c.id for c in changes if c.status == UnitStatus.SUPERSEDED),
            units_read=len(stored),
        )
