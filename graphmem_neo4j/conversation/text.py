"""Words, names and dates: the small amount of language handling the layer needs, no models."""

from __future__ import annotations

import calendar
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..fulltext import STOPWORDS

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)

# Words that carry no topic in conversational text or in questions about it. The full-text
# index would match them in most turns, which costs time and adds only noise.
CONVERSATION_STOPWORDS = STOPWORDS | frozenset(
    (
        "about after again all also am any anything back been before being both can could "
        "doing during each even ever few got get gets getting go going gonna just kind know "
        "like likely lot lots made make many may might more most much must need new now off "
        "oh ok okay one only other out over own really said same say says see should since "
        "some something still such sure take tell thing things think through too two type "
        "types up us very want wanted way well whose yeah yes yet"
    ).split()
)

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
WEEKDAYS = {name.lower() for name in calendar.day_name}


def words(text: str) -> list[str]:
    """Word tokens in order, lower-cased, possessive 's dropped."""
    out = []
    for token in _WORD.findall(text.lower()):
        if token.endswith("'s"):
            token = token[:-2]
        out.append(token.replace("'", ""))
    return out


def content_terms(text: str, *, exclude: Iterable[str] = (), limit: int = 24) -> list[str]:
    """Distinct searchable words of a query: no stopwords, no one-letter words, no `exclude`
    (e.g. speaker names, which a separate signal handles), first occurrence order."""
    skip = {w.lower() for w in exclude}
    seen: dict[str, None] = {}
    for word in words(text):
        if len(word) > 1 and word not in CONVERSATION_STOPWORDS and word not in skip:
            seen.setdefault(word, None)
    return list(seen)[:limit]


def query_phrases(text: str, *, limit: int = 8) -> list[str]:
    """What a question names, as probes for the entity index: pairs of adjacent content words
    first ("martial arts", "european countries": a two-word category is more specific than
    either word), then the single content words, at most `limit` in all."""
    tokens = words(text)
    content = [len(w) > 1 and w not in CONVERSATION_STOPWORDS for w in tokens]
    pairs = [
        f"{a} {b}"
        for a, b, ca, cb in zip(tokens, tokens[1:], content, content[1:], strict=False)
        if ca and cb
    ]
    out = dict.fromkeys(pairs + content_terms(text))
    return list(out)[:limit]


def term_count(text: str) -> int:
    """Document length for BM25: the number of indexable words."""
    return sum(1 for w in words(text) if len(w) > 1 and w not in STOPWORDS)


def name_key(name: str) -> str:
    """The normalised title of an entity: the paper's exact-title hash key (§ de-duplication).

    Case, punctuation, possessives, a leading article and surrounding space do not matter.
    """
    tokens = words(name)
    while tokens and tokens[0] in ("the", "a", "an", "my", "our", "his", "her", "their", "your"):
        tokens = tokens[1:]
    return " ".join(tokens)


def stable_id(*parts: str, prefix: str = "") -> str:
    """A short deterministic id: the same parts always give the same id (idempotent writes)."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"{prefix}{digest}"


def content_hash(*parts: str | None) -> str:
    digest = hashlib.sha1()
    for part in parts:
        digest.update((part or "").encode("utf-8"))
        digest.update(b"\x1f")
    return digest.hexdigest()[:16]


# --- time --------------------------------------------------------------------------------


def to_epoch_ms(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def from_epoch_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def parse_iso(value: str) -> int:
    """ISO-8601 date or date-time → epoch ms (naive times are UTC). ValueError otherwise."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return to_epoch_ms(datetime.fromisoformat(text))


_LOCOMO_TIME = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I
)


def parse_locomo_time(value: str) -> int:
    """LoCoMo's session stamps, e.g. "1:56 pm on 8 May, 2023" → epoch ms (UTC)."""
    match = _LOCOMO_TIME.match(value)
    if not match:
        raise ValueError(f"not a LoCoMo date-time: {value!r}")
    hour, minute, half, day, month_name, year = match.groups()
    month = MONTHS.get(month_name.lower())
    if month is None:
        raise ValueError(f"unknown month {month_name!r} in {value!r}")
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return to_epoch_ms(datetime(int(year), month, int(day), h, int(minute), tzinfo=UTC))


_LONGMEMEVAL_TIME = re.compile(
    r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]+\))?\s*(\d{1,2}):(\d{2})\s*$"
)


def parse_longmemeval_time(value: str) -> int:
    """LongMemEval's session dates, e.g. "2023/05/20 (Sat) 02:21" → epoch ms (UTC)."""
    match = _LONGMEMEVAL_TIME.match(value)
    if not match:
        raise ValueError(
            f"not a LongMemEval date: {value!r} (expected like 2023/05/20 (Sat) 02:21)"
        )
    year, month, day, hour, minute = (int(g) for g in match.groups())
    return to_epoch_ms(datetime(year, month, day, hour, minute, tzinfo=UTC))


@dataclass(frozen=True)
class TimeRange:
    start_ms: int
    end_ms: int
    label: str
    month: int | None = None
    """Set for a month named without a year ("in June"): that month of any year."""

    def contains(self, ms: int) -> bool:
        if self.month is not None:
            return from_epoch_ms(ms).month == self.month
        return self.start_ms <= ms <= self.end_ms


_MONTH_YEAR = re.compile(
    r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?,?\s+(\d{4})\b", re.I
)
_DAY_MONTH_YEAR = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")"
    r"\.?,?\s+(\d{4})\b",
    re.I,
)
_MONTH_DAY_YEAR = re.compile(
    r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?"
    r",?\s+(\d{4})\b",
    re.I,
)
_YEAR = re.compile(r"\b(19\d{2}|20\d{2})\b")
# A capitalised month name after a preposition, with no year after it ("camping in June"):
# "may" and "march" as verbs are neither capitalised nor after "in".
_BARE_MONTH = re.compile(
    r"\b(?:in|during|early|late|mid|since|by|until|last|this|next)[\s-]+("
    + "|".join(name for name in calendar.month_name if name)
    + r")\b(?!\.?,?\s+\d{4})"
)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def _day_range(year: int, month: int, day: int, label: str) -> TimeRange | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    return TimeRange(to_epoch_ms(start), to_epoch_ms(start + timedelta(days=1)) - 1, label)


def _month_range(year: int, month: int, label: str) -> TimeRange:
    start = datetime(year, month, 1, tzinfo=UTC)
    last = calendar.monthrange(year, month)[1]
    return TimeRange(to_epoch_ms(start), to_epoch_ms(start + timedelta(days=last)) - 1, label)


def time_ranges(text: str, *, any_year: bool = False) -> list[TimeRange]:
    """Absolute dates a text names ("8 May 2023", "May 2023", "2023-05-08", "2022"), as
    ranges, most specific first; with `any_year`, also a month named without a year ("in
    June": that month of any year, for questions). Relative phrases need an anchor: see
    `relative_dates`."""
    found: list[TimeRange] = []
    taken: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return all(span[1] <= a or span[0] >= b for a, b in taken)

    for m in _ISO_DATE.finditer(text):
        r = _day_range(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(0))
        if r:
            found.append(r)
            taken.append(m.span())
    for m in _DAY_MONTH_YEAR.finditer(text):
        if free(m.span()):
            month = MONTHS[m.group(2).lower()]
            r = _day_range(int(m.group(3)), month, int(m.group(1)), m.group(0))
            if r:
                found.append(r)
                taken.append(m.span())
    for m in _MONTH_DAY_YEAR.finditer(text):
        if free(m.span()):
            month = MONTHS[m.group(1).lower()]
            r = _day_range(int(m.group(3)), month, int(m.group(2)), m.group(0))
            if r:
                found.append(r)
                taken.append(m.span())
    for m in _MONTH_YEAR.finditer(text):
        if free(m.span()):
            found.append(_month_range(int(m.group(2)), MONTHS[m.group(1).lower()], m.group(0)))
            taken.append(m.span())
    for m in _YEAR.finditer(text):
        if free(m.span()):
            year = int(m.group(1))
            start = to_epoch_ms(datetime(year, 1, 1, tzinfo=UTC))
            end = to_epoch_ms(datetime(year + 1, 1, 1, tzinfo=UTC)) - 1
            found.append(TimeRange(start, end, m.group(0)))
            taken.append(m.span())
    if any_year:
        for m in _BARE_MONTH.finditer(text):
            if free(m.span(1)):
                found.append(TimeRange(0, -1, m.group(1), month=MONTHS[m.group(1).lower()]))
    return found


_RELATIVE = (
    (re.compile(r"\byesterday\b", re.I), timedelta(days=-1), "day"),
    (re.compile(r"\btoday\b|\bthis morning\b|\btonight\b", re.I), timedelta(0), "day"),
    (re.compile(r"\btomorrow\b", re.I), timedelta(days=1), "day"),
    (re.compile(r"\blast week\b", re.I), timedelta(days=-7), "week"),
    (re.compile(r"\bnext week\b", re.I), timedelta(days=7), "week"),
    (re.compile(r"\blast weekend\b", re.I), timedelta(days=-7), "week"),
    (re.compile(r"\blast month\b", re.I), timedelta(days=-30), "month"),
    (re.compile(r"\bnext month\b", re.I), timedelta(days=30), "month"),
    (re.compile(r"\blast year\b", re.I), timedelta(days=-365), "year"),
    (re.compile(r"\bnext year\b", re.I), timedelta(days=365), "year"),
)
_AGO = re.compile(r"\b(\d+|a|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b", re.I)
_NUMBER = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_UNIT = {"day": 1, "week": 7, "month": 30, "year": 365}


def relative_dates(text: str, anchor_ms: int | None) -> list[tuple[str, str]]:
    """(phrase, resolved label) for relative time phrases, resolved against the turn's time:
    "yesterday" said on 2023-05-08 → ("yesterday", "2023-05-07"). Empty without an anchor."""
    if anchor_ms is None:
        return []
    anchor = from_epoch_ms(anchor_ms)
    out: list[tuple[str, str]] = []
    for pattern, delta, unit in _RELATIVE:
        for m in pattern.finditer(text):
            out.append((m.group(0), _label(anchor + delta, unit)))
    for m in _AGO.finditer(text):
        count = int(m.group(1)) if m.group(1).isdigit() else _NUMBER[m.group(1).lower()]
        unit = m.group(2).lower()
        out.append((m.group(0), _label(anchor - timedelta(days=count * _UNIT[unit]), unit)))
    return out


def _label(moment: datetime, unit: str) -> str:
    if unit == "year":
        return f"{moment.year}"
    if unit == "month":
        return f"{moment.year}-{moment.month:02d}"
    if unit == "week":
        return f"week of {moment.date().isoformat()}"
    return moment.date().isoformat()


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def join_nonempty(parts: Sequence[str | None], sep: str = " ") -> str:
    return sep.join(p for p in parts if p)


# --- questions ----------------------------------------------------------------------------

_SEVERAL = frozenset("both all ways kinds types some many names".split())
_AUX = frozenset(
    "am are be did do does had has have is was were will would could can should might kind "
    "type sort".split()
)
_NOT_PLURAL = frozenset("always does has his its perhaps this thus was yes".split())


_WHEN_NOUNS = frozenset("year month date day week time season".split())


def asks_when(question: str) -> bool:
    """Whether a question asks when something happened or for how long ("When did Maya ...",
    "What year ...", "How long ago ...", "Since when ..."): its answer needs a time the
    conversation states, so the turns naming one are the likelier evidence."""
    tokens = words(question)[:3]
    if not tokens:
        return False
    if tokens[0] == "when" or tokens[:2] in (["how", "long"], ["since", "when"]):
        return True
    return (
        tokens[0] in ("what", "which", "in")
        and len(tokens) > 1
        and (tokens[1] in _WHEN_NOUNS or (len(tokens) > 2 and tokens[2] in _WHEN_NOUNS))
    )


def asks_for_several(question: str) -> bool:
    """Whether a question asks for several facts ("What books has Maya read?", "Where has
    Maya camped?", "What do both ..."): a plural noun heading the wh-phrase, a quantifier, or
    the present perfect after a wh-word (experiences collected over time). Evidence for such
    a question sits in several sessions."""
    tokens = [w for w in words(question) if w]
    if not tokens:
        return False
    if _SEVERAL & set(tokens):
        return True
    if tokens[0] not in ("what", "which", "where", "who", "how"):
        return False
    if len(tokens) > 1 and tokens[1] in ("has", "have"):
        return True
    for token in tokens[1:4]:
        if token in _AUX:
            break
        plural = len(token) > 3 and token.endswith("s") and not token.endswith("ss")
        if plural and token not in _NOT_PLURAL:
            return True
    return False
