"""Coordinated rewriting (HiGram §3.3, eq. 9-10) as pure decisions; the service reads what
they need and writes what they decide.

Intra-unit: all versions of one slot (subject, relation, context) are folded in valid-time
order. Each later claim either re-asserts the value in force, replaces it, or stays `pending`
(the static-conflict rule):

    a claim replaces the value in force iff
        support(claim) >= accept                       (a confident claim: a real change)
     or support(claim) >= support(value) - margin      (a hedged claim close enough)

where support is the noisy-OR of the confidences of the claims asserting that value
(1 - Π(1 - c)), accept = 0.7 and margin = 0.2. Facts stated without a confidence (0.8) always
update; a hedged claim (say 0.4) does not overturn a value held at 0.9, and a value confirmed by
several sources is harder still. Claims of the same rejected value accumulate support, so
enough of them do replace it. Because the fold depends only on the set of versions (sorted by
valid time), the resulting view does not depend on the order in which the updates arrived.

Inter-unit: a current unit that has supporters stays active while at least one supporter is
active, and becomes `outdated` otherwise (it comes back when one is active again). When a value
is re-asserted by a new unit, the dependents of the old unit are supported by the new one; a
unit with a *different* value never inherits the old unit's dependents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .models import MemoryUnit, UnitStatus

DEFAULT_MARGIN = 0.2
DEFAULT_ACCEPT = 0.7
_EPS = 1e-9

State = Literal["current", "superseded", "pending"]


def noisy_or(a: float, b: float) -> float:
    """Support of a value asserted independently with confidences a and b."""
    return 1.0 - (1.0 - a) * (1.0 - b)


@dataclass(frozen=True)
class Version:
    id: str
    object_key: str
    valid_from: int
    confidence: float


@dataclass(frozen=True)
class VersionState:
    id: str
    state: State
    valid_to: int | None = None
    superseded_by: str | None = None
    contests: str | None = None
    same_value: bool = False
    """Superseded by a re-assertion of the same value (its dependents carry over)."""


def resolve_versions(
    versions: Iterable[Version],
    *,
    margin: float = DEFAULT_MARGIN,
    accept: float = DEFAULT_ACCEPT,
) -> dict[str, VersionState]:
    """Fold one slot's versions in valid-time order (ties: the weaker claim first, so the
    stronger of two simultaneous claims wins) and say which is current, which superseded (and
    by what, until when), and which pending."""
    order = sorted(versions, key=lambda v: (v.valid_from, v.confidence, v.id))
    states: dict[str, VersionState] = {}
    holder: Version | None = None
    strength = 0.0
    challengers: dict[str, float] = {}
    for v in order:
        if holder is None:
            holder, strength = v, v.confidence
            continue
        if v.object_key == holder.object_key:
            states[holder.id] = VersionState(
                holder.id, "superseded", v.valid_from, v.id, same_value=True
            )
            holder, strength = v, noisy_or(strength, v.confidence)
            continue
        support = noisy_or(challengers.get(v.object_key, 0.0), v.confidence)
        if support + _EPS >= accept or support + _EPS >= strength - margin:
            states[holder.id] = VersionState(holder.id, "superseded", v.valid_from, v.id)
            holder, strength = v, support
            challengers.clear()
        else:
            challengers[v.object_key] = support
            states[v.id] = VersionState(v.id, "pending", contests=holder.id)
    if holder is not None:
        states[holder.id] = VersionState(holder.id, "current")
    return states


@dataclass(frozen=True)
class SupporterRef:
    id: str
    status: str
    valid_to: int | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SupporterRef:
        valid_to = row.get("valid_to")
        return cls(str(row["id"]), str(row["status"]), None if valid_to is None else int(valid_to))


@dataclass(frozen=True)
class StoredUnit:
    """A unit as read for rewriting: its record, its supporters, and the edges that explain
    its status now."""

    unit: MemoryUnit
    supporters: tuple[SupporterRef, ...] = ()
    superseded_by: tuple[str, ...] = ()
    contests: tuple[str, ...] = ()


@dataclass(frozen=True)
class StatusChange:
    id: str
    status: UnitStatus
    valid_to: int | None
    superseded_by: str | None = None
    contests: str | None = None

    def as_row(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status.value,
            "valid_to": self.valid_to,
            "superseded_by": self.superseded_by,
            "contests": self.contests,
        }


def support_lost_at(valid_from: int, supporters: Sequence[tuple[str, int | None]], now: int) -> int:
    """When a unit stopped being supported: when its last supporter stopped holding."""
    ends = [end if end is not None else now for _, end in supporters]
    return max([valid_from, *ends])


def validity(
    valid_from: int, supporters: Sequence[tuple[str, int | None]], now: int
) -> tuple[UnitStatus, int | None]:
    """Status and valid_to of a current unit given its supporters' (status, valid_to)."""
    if not supporters or any(status == UnitStatus.ACTIVE for status, _ in supporters):
        return UnitStatus.ACTIVE, None
    return UnitStatus.OUTDATED, support_lost_at(valid_from, supporters, now)


def _differs(stored: StoredUnit, change: StatusChange) -> bool:
    return (
        stored.unit.status != change.status
        or stored.unit.valid_to != change.valid_to
        or stored.superseded_by != ((change.superseded_by,) if change.superseded_by else ())
        or stored.contests != ((change.contests,) if change.contests else ())
    )


@dataclass
class SlotPlan:
    changes: list[StatusChange] = field(default_factory=list)
    states: dict[str, VersionState] = field(default_factory=dict)
    transfers: dict[str, str] = field(default_factory=dict)
    """old unit → the unit re-asserting its value (dependents carry over)."""


def plan_slot(
    stored: Sequence[StoredUnit],
    *,
    margin: float = DEFAULT_MARGIN,
    accept: float = DEFAULT_ACCEPT,
    now: int,
) -> SlotPlan:
    """Intra-unit rewriting of one slot: the status every version should have, as changes
    against what is stored."""
    states = resolve_versions(
        (
            Version(s.unit.id, s.unit.object_key, s.unit.valid_from, s.unit.confidence)
            for s in stored
        ),
        margin=margin,
        accept=accept,
    )
    plan = SlotPlan(states=states)
    for s in stored:
        st = states[s.unit.id]
        if st.state == "superseded":
            change = StatusChange(s.unit.id, UnitStatus.SUPERSEDED, st.valid_to, st.superseded_by)
            if st.same_value and st.superseded_by is not None:
                plan.transfers[s.unit.id] = st.superseded_by
        elif st.state == "pending":
            change = StatusChange(s.unit.id, UnitStatus.PENDING, None, contests=st.contests)
        else:
            status, valid_to = validity(
                s.unit.valid_from, [(r.status, r.valid_to) for r in s.supporters], now
            )
            change = StatusChange(s.unit.id, status, valid_to)
        if _differs(s, change):
            plan.changes.append(change)
    return plan


def plan_dependents(
    dependents: Sequence[StoredUnit],
    *,
    effective: Mapping[str, tuple[UnitStatus, int | None]],
    extra_supporters: Mapping[str, Sequence[str]],
    now: int,
) -> list[StatusChange]:
    """Inter-unit rewriting (eq. 10): each dependent stays active while one supporter is
    active after this update. `effective` holds the statuses this update gives; units it
    does not change keep their stored status. `extra_supporters` are re-asserting units that
    now support a dependent too."""
    changes: list[StatusChange] = []
    for d in dependents:
        if d.unit.status not in (UnitStatus.ACTIVE, UnitStatus.OUTDATED):
            continue
        seen: dict[str, tuple[str, int | None]] = {}
        for ref in d.supporters:
            seen[ref.id] = effective.get(ref.id, (UnitStatus(ref.status), ref.valid_to))
        for extra in extra_supporters.get(d.unit.id, ()):
            seen[extra] = effective.get(extra, (UnitStatus.ACTIVE, None))
        status, valid_to = validity(d.unit.valid_from, list(seen.values()), now)
        change = StatusChange(d.unit.id, status, valid_to)
        if d.unit.status != status or d.unit.valid_to != valid_to:
            changes.append(change)
    return changes


def plan_relation_level(
    stored: Sequence[StoredUnit], new_id: str, *, at: int
) -> list[StatusChange]:
    """Baseline (Table 3, "relation-level"): the newest arrival overwrites every active unit
    with its subject and relation, whatever their context, confidence or valid time; no
    dependency is looked at."""
    changes = [
        StatusChange(s.unit.id, UnitStatus.SUPERSEDED, at, new_id)
        for s in stored
        if s.unit.id != new_id and s.unit.status == UnitStatus.ACTIVE
    ]
    changes.append(StatusChange(new_id, UnitStatus.ACTIVE, None))
    return changes
