import pytest

from graphmem_neo4j.facts.keys import (
    context_key,
    format_time,
    name_key,
    parse_time,
    relation_key,
    stem,
    terms,
    unit_id,
    unit_text,
)


@pytest.mark.parametrize(
    ("raw", "key"),
    [("Alice", "alice"), ("  alice  ", "alice"), ("Alice's", "alice"), ("New   York.", "new york")],
)
def test_names_that_mean_the_same_subject_share_a_key(raw: str, key: str) -> None:
    assert name_key(raw) == key


@pytest.mark.parametrize("raw", ["lives in", "lives_in", "LIVES-IN", " Lives  In "])
def test_relation_spellings_share_a_key(raw: str) -> None:
    assert relation_key(raw) == "lives_in"


@pytest.mark.parametrize(
    ("raw", "key"),
    [("in the evening", "evening"), ("Evening", "evening"), ("at work", "work"), ("", None)],
)
def test_context_phrases_drop_their_preposition(raw: str, key: str | None) -> None:
    assert context_key(raw) == key
    assert context_key(None) is None


def test_stems_join_word_forms() -> None:
    assert {stem(w) for w in ("live", "lives", "lived", "living")} == {"liv"}
    assert stem("works") == stem("working") == "work"
    assert stem("teaches") == "teach"
    assert stem("glass") == "glass"
    assert terms("lives_in") == frozenset({"liv"})


@pytest.mark.parametrize(
    ("text", "epoch_ms", "iso"),
    [
        # epoch milliseconds worked out independently (calendar.timegm(...) * 1000)
        ("2021", 1_609_459_200_000, "2021-01-01T00:00:00Z"),
        ("2021-03", 1_614_556_800_000, "2021-03-01T00:00:00Z"),
        ("2021-03-04", 1_614_816_000_000, "2021-03-04T00:00:00Z"),
        ("2021-03-04T10:30:00Z", 1_614_853_800_000, "2021-03-04T10:30:00Z"),
        ("2021-03-04T12:30:00+02:00", 1_614_853_800_000, "2021-03-04T10:30:00Z"),
    ],
)
def test_iso_times_become_epoch_milliseconds(text: str, epoch_ms: int, iso: str) -> None:
    assert parse_time(text) == epoch_ms  # seconds, or a local-time reading, would differ
    assert format_time(epoch_ms) == iso


@pytest.mark.parametrize("text", ["yesterday", "2021-13", "03/04/2021", ""])
def test_bad_times_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="ISO-8601"):
        parse_time(text)


def test_unit_ids_depend_on_content_only() -> None:
    a = unit_id("alice", "lives_in", "paris", "location", None, None, None)
    assert a == unit_id("alice", "lives_in", "paris", "location", None, None, None)
    assert a.startswith("mu-")
    assert a != unit_id("alice", "lives_in", "london", "location", None, None, None)
    assert a != unit_id("alice", "lives_in", "paris", "location", "summer", None, None)
    assert a != unit_id("alice", "lives_in", "paris", "location", None, "1", None)


def test_unit_text_reads_as_a_sentence() -> None:
    assert unit_text("Alice", "lives_in", "Paris", None) == "Alice lives in Paris"
    assert unit_text("Alice", "drinks", "tea", "evening") == "Alice drinks tea (evening)"
