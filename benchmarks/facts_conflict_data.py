"""A generator of conflict scenarios in the spirit of MemConflict (Tao et al., 2026), the
setting of HiGram's Table 2-3: dynamic, static and conditional conflicts over structured facts.

- dynamic: a value changes over time (2-4 dated versions); the latest valid one must win. In a
  quarter of the scenarios one update arrives late (after a newer one). Half the scenarios hold
  a derived fact that depends on the first version: it must end `outdated`; in a third of
  those it also rests on a second, unchanged fact, and must stay active.
- static: a well-supported value (confidence 0.85-0.95, confirmed by a second source half the
  time) meets a later contradicting claim of confidence 0.2-0.55 from hearsay; the original
  must stay. Some scenarios hold a dependent of the original, which must stay active.
- conditional: a general value and values that hold only in a context ("in the evening", "at
  work"); some contexts and the general value are updated later. A question with a context
  must get that context's latest value, a question without one the general value.

Every fact carries an explicit valid_from, so updates of one slot commute: any arrival order
must give the same final view (update-order consistency). Seeded and deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

FIRST = (
    "Ada Ben Cleo Dara Eli Fern Gus Hana Ivo Jun Kai Lena Milo Nia Oren Pia Quin Rhea Sami Tova "
    "Uma Vik Wren Xena Yuri Zoe Abel Bria Cyril Dina Emil Faye Gino Hedy Ilse Joel Kira Lars Mona "
    "Nils"
).split()
LAST = (
    "Abbott Baker Castro Dalton Ellis Frost Garner Hale Iyer Jensen Kovac Larsen Moreau Novak "
    "Ortiz Patel Quinn Rossi Sato Tanaka Ueda Varga Walsh Xu Yilmaz Zubiri Arden Brandt Cole "
    "Dunn Engel Fischer Gray Horvat Ibsen Jones Klein Lund Marsh Nash"
).split()
CITIES = (
    "Paris Lisbon Oslo Berlin Madrid Vienna Prague Dublin Rome Athens Warsaw Zurich Geneva "
    "Milan Porto Seville Lyon Munich Bergen Krakow Tallinn Riga Vilnius Helsinki Copenhagen"
).split()
COMPANIES = (
    "Acme Initech Globex Umbrella Hooli Vandelay Soylent Cyberdyne Tyrell Wonka Stark Wayne "
    "Aperture Monarch Oscorp Massive Dynamic Gringotts Nakatomi Pied Piper"
).split()
CARS = (
    "Volvo Saab Fiat Skoda Tesla Toyota Honda Mazda Peugeot Renault Audi Opel Kia Dacia Seat"
).split()
SPORTS = "tennis rowing fencing judo squash hockey rugby cricket cycling climbing golf".split()
LANGUAGES = "Finnish Basque Welsh Icelandic Maltese Catalan Estonian Latvian Slovak Danish".split()
CLOTHES = "suit jeans hoodie blazer parka sweater dress uniform tracksuit overalls".split()
FOODS = "ramen tacos paella sushi pierogi falafel risotto goulash curry pho".split()
DRINKS = [
    "espresso",
    "cappuccino",
    "green tea",
    "black tea",
    "rooibos",
    "chamomile",
    "matcha",
    "lemonade",
    "kombucha",
    "sparkling water",
    "orange juice",
    "hot chocolate",
    "oolong",
    "kefir",
]

# relation, category, values, question template, derived relation, derived category
DYNAMIC = (
    ("lives_in", "location", CITIES, "Where does {s} live?", "local_club", "activity"),
    ("works_at", "organisation", COMPANIES, "Where does {s} work?", "office_badge", "access"),
    ("drives", "possession", CARS, "What car does {s} drive?", "insurer", "finance"),
    ("plays", "activity", SPORTS, "What sport does {s} play?", "team", "membership"),
)
STATIC = (
    ("employer", "organisation", COMPANIES, "Who is {s}'s employer?"),
    ("born_in", "location", CITIES, "Where was {s} born?"),
    ("speaks", "language", LANGUAGES, "What language does {s} speak?"),
)
CONDITIONAL = (
    (
        "drinks",
        "preference",
        DRINKS,
        "What does {s} drink{c}?",
        ("in the morning", "in the evening", "at work", "on weekends"),
    ),
    (
        "wears",
        "clothing",
        CLOTHES,
        "What does {s} wear{c}?",
        ("at work", "at home", "in the winter", "on weekends"),
    ),
)
KINDS = ("dynamic", "static", "conditional")


@dataclass(frozen=True)
class Question:
    scenario: str
    kind: str
    text: str
    gold: str
    gold_units: frozenset[str]


@dataclass
class Scenario:
    id: str
    kind: str
    subject: str
    facts: list[dict[str, Any]] = field(default_factory=list)
    """In arrival order."""
    questions: list[Question] = field(default_factory=list)
    must_outdate: list[str] = field(default_factory=list)
    """Derived units whose only support changed."""
    must_stay: list[str] = field(default_factory=list)
    """Derived units that keep active support."""
    contested: list[str] = field(default_factory=list)
    """Claims that must not replace the value they contradict."""
    commuting: list[str] = field(default_factory=list)
    """Facts whose arrival order may be permuted (value updates of one slot)."""

    def permuted(self, rng: random.Random) -> list[dict[str, Any]]:
        """The same facts with the commuting ones in a random order (dependents stay after
        the facts they depend on)."""
        movable = [f for f in self.facts if f["id"] in self.commuting]
        rng.shuffle(movable)
        out: list[dict[str, Any]] = []
        it = iter(movable)
        for f in self.facts:
            out.append(next(it) if f["id"] in self.commuting else f)
        placed: set[str] = set()
        ordered: list[dict[str, Any]] = []
        waiting = list(out)
        while waiting:
            for f in waiting:
                if all(d in placed for d in f.get("depends_on", [])):
                    ordered.append(f)
                    placed.add(f["id"])
                    waiting.remove(f)
                    break
        return ordered


def _day(d: date) -> str:
    return d.isoformat()


def opaque(scenarios: list[Scenario], seed: int) -> list[Scenario]:
    """Replace readable ids ("dyn3-v0") by random ones, so that nothing that sorts by id (a
    tie-break) can tell an old version from the answer."""
    rng = random.Random(seed ^ 0x5EED)
    mapping: dict[str, str] = {}
    for sc in scenarios:
        for f in sc.facts:
            mapping[f["id"]] = f"u{rng.getrandbits(48):012x}"
    for sc in scenarios:
        sc.facts = [
            {
                **f,
                "id": mapping[f["id"]],
                **(
                    {"depends_on": [mapping[d] for d in f["depends_on"]]}
                    if "depends_on" in f
                    else {}
                ),
            }
            for f in sc.facts
        ]
        sc.questions = [
            Question(
                q.scenario, q.kind, q.text, q.gold, frozenset(mapping[i] for i in q.gold_units)
            )
            for q in sc.questions
        ]
        sc.must_outdate = [mapping[i] for i in sc.must_outdate]
        sc.must_stay = [mapping[i] for i in sc.must_stay]
        sc.contested = [mapping[i] for i in sc.contested]
        sc.commuting = [mapping[i] for i in sc.commuting]
    return scenarios


class Generator:
    def __init__(self, seed: int = 7) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.names = [f"{a} {b}" for a in FIRST for b in LAST]
        self.rng.shuffle(self.names)
        self.used = 0

    def _subject(self) -> str:
        name = self.names[self.used]
        self.used += 1
        return name

    def _distractors(self, sc: Scenario, start: date) -> None:
        rng = self.rng
        sc.facts.append(
            {
                "id": f"{sc.id}-likes",
                "subject": sc.subject,
                "relation": "likes",
                "object": rng.choice(FOODS),
                "category": "preference",
                "valid_from": _day(start),
                "confidence": 0.9,
            }
        )
        sc.facts.append(
            {
                "id": f"{sc.id}-team",
                "subject": sc.subject,
                "relation": "member_of",
                "object": f"{rng.choice(LAST)} Society",
                "category": "membership",
                "valid_from": _day(start),
                "confidence": 0.9,
            }
        )

    def dynamic(self, n: int) -> Scenario:
        rng = self.rng
        rel, cat, values, template, derived_rel, derived_cat = rng.choice(DYNAMIC)
        sc = Scenario(f"dyn{n}", "dynamic", self._subject())
        self._distractors(sc, date(2015, 1, 1))
        start = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 1500))
        chosen = rng.sample(values, rng.randint(2, 4))
        versions = []
        when = start
        for i, value in enumerate(chosen):
            versions.append(
                {
                    "id": f"{sc.id}-v{i}",
                    "subject": sc.subject,
                    "relation": rel,
                    "object": value,
                    "category": cat,
                    "valid_from": _day(when),
                    "confidence": round(rng.uniform(0.7, 0.95), 2),
                    "source": f"report {i}",
                }
            )
            when += timedelta(days=rng.randrange(200, 900))
        arrival = list(versions)
        if len(arrival) >= 3 and rng.random() < 0.25:
            arrival[-1], arrival[-2] = arrival[-2], arrival[-1]  # a late report
        sc.commuting = [v["id"] for v in versions]
        sc.facts.append(arrival[0])
        rest = arrival[1:]
        if rng.random() < 0.5:
            first = arrival[0]
            derived = {
                "id": f"{sc.id}-derived",
                "subject": sc.subject,
                "relation": derived_rel,
                "object": f"{first['object']} {derived_rel.replace('_', ' ')}",
                "category": derived_cat,
                "valid_from": first["valid_from"],
                "depends_on": [first["id"]],
            }
            if rng.random() < 1 / 3:
                backup = {
                    "id": f"{sc.id}-registry",
                    "subject": sc.subject,
                    "relation": "registered_with",
                    "object": "City Registry",
                    "category": "records",
                    "valid_from": first["valid_from"],
                    "confidence": 0.9,
                }
                sc.facts.append(backup)
                derived["depends_on"] = [first["id"], backup["id"]]
                sc.must_stay.append(derived["id"])
            else:
                sc.must_outdate.append(derived["id"])  # the first version is never the latest
            sc.facts.append(derived)
        sc.facts.extend(rest)
        latest = max(versions, key=lambda v: v["valid_from"])
        sc.questions.append(
            Question(
                sc.id,
                "dynamic",
                template.format(s=sc.subject),
                latest["object"],
                frozenset({latest["id"]}),
            )
        )
        return sc

    def static(self, n: int) -> Scenario:
        rng = self.rng
        rel, cat, values, template = rng.choice(STATIC)
        sc = Scenario(f"sta{n}", "static", self._subject())
        self._distractors(sc, date(2015, 1, 1))
        start = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 1500))
        truth, wrong = rng.sample(values, 2)
        base = {
            "id": f"{sc.id}-base",
            "subject": sc.subject,
            "relation": rel,
            "object": truth,
            "category": cat,
            "valid_from": _day(start),
            "confidence": round(rng.uniform(0.85, 0.95), 2),
            "source": "registry",
        }
        sc.facts.append(base)
        gold = {base["id"]}
        if rng.random() < 0.5:
            confirm = {
                **base,
                "id": f"{sc.id}-confirm",
                "valid_from": _day(start + timedelta(days=30)),
                "confidence": 0.8,
                "source": "second source",
            }
            sc.facts.append(confirm)
            gold.add(confirm["id"])
            sc.commuting.append(confirm["id"])
        if rng.random() < 0.4:
            dep = {
                "id": f"{sc.id}-derived",
                "subject": sc.subject,
                "relation": f"{rel}_note",
                "object": f"based on {truth}",
                "category": "notes",
                "valid_from": _day(start + timedelta(days=60)),
                "depends_on": [base["id"]],
            }
            sc.facts.append(dep)
            sc.must_stay.append(dep["id"])
        claim = {
            "id": f"{sc.id}-claim",
            "subject": sc.subject,
            "relation": rel,
            "object": wrong,
            "category": cat,
            "valid_from": _day(start + timedelta(days=rng.randrange(365, 1100))),
            "confidence": round(rng.uniform(0.2, 0.55), 2),
            "source": "hearsay",
        }
        sc.facts.append(claim)
        sc.contested.append(claim["id"])
        sc.commuting += [base["id"], claim["id"]]
        sc.questions.append(
            Question(sc.id, "static", template.format(s=sc.subject), truth, frozenset(gold))
        )
        return sc

    def conditional(self, n: int) -> Scenario:
        rng = self.rng
        rel, cat, values, template, contexts = rng.choice(CONDITIONAL)
        sc = Scenario(f"con{n}", "conditional", self._subject())
        self._distractors(sc, date(2015, 1, 1))
        start = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 1500))
        pool = rng.sample(values, 6)
        chosen_contexts = rng.sample(contexts, 2)
        slots: list[tuple[str | None, list[dict[str, Any]]]] = []
        for ci, ctx in enumerate([None, *chosen_contexts]):
            versions = [
                {
                    "id": f"{sc.id}-c{ci}v0",
                    "subject": sc.subject,
                    "relation": rel,
                    "object": pool.pop(),
                    "category": cat,
                    "valid_from": _day(start),
                    "confidence": round(rng.uniform(0.75, 0.95), 2),
                    **({"context": ctx} if ctx else {}),
                }
            ]
            if rng.random() < 0.4:
                later = start + timedelta(days=rng.randrange(200, 900))
                versions.append(
                    {
                        **versions[0],
                        "id": f"{sc.id}-c{ci}v1",
                        "object": pool.pop(),
                        "valid_from": _day(later),
                        "confidence": round(rng.uniform(0.75, 0.95), 2),
                    }
                )
            slots.append((ctx, versions))
        arrival = [v for _, versions in slots for v in versions]
        rng.shuffle(arrival)
        sc.facts.extend(arrival)
        sc.commuting = [v["id"] for v in arrival]
        for ctx, versions in slots:
            latest = versions[-1]
            suffix = f" {ctx}" if ctx else ""
            sc.questions.append(
                Question(
                    sc.id,
                    "conditional",
                    template.format(s=sc.subject, c=suffix),
                    latest["object"],
                    frozenset({latest["id"]}),
                )
            )
        return sc

    def scenarios(self, per_kind: int) -> list[Scenario]:
        out: list[Scenario] = []
        for i in range(per_kind):
            out += [self.dynamic(i), self.static(i), self.conditional(i)]
        return opaque(out, self.seed)


def stream(
    scenarios: list[Scenario], rng: random.Random, *, permute: bool = False
) -> list[dict[str, Any]]:
    """All scenarios' facts interleaved at random, each scenario's own order kept (or its
    commuting facts permuted)."""
    queues = [sc.permuted(rng) if permute else list(sc.facts) for sc in scenarios]
    out: list[dict[str, Any]] = []
    live = [q for q in queues if q]
    while live:
        q = rng.choice(live)
        out.append(q.pop(0))
        if not q:
            live.remove(q)
    return out
