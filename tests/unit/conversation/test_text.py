from __future__ import annotations

import pytest

from graphmem_neo4j.conversation.text import (
    content_terms,
    name_key,
    parse_iso,
    parse_locomo_time,
    relative_dates,
    time_ranges,
)


def test_locomo_times() -> None:
    assert parse_locomo_time("1:56 pm on 8 May, 2023") == parse_iso("2023-05-08T13:56:00Z")
    assert parse_locomo_time("12:09 am on 1 January, 2024") == parse_iso("2024-01-01T00:09:00Z")
    assert parse_locomo_time("12:30 pm on 3 Feb, 2022") == parse_iso("2022-02-03T12:30:00Z")
    with pytest.raises(ValueError):
        parse_locomo_time("May 8th")


def test_iso_parsing_treats_naive_times_as_utc() -> None:
    assert parse_iso("2024-03-02T10:15:00") == parse_iso("2024-03-02T10:15:00+00:00")
    assert parse_iso("2024-03-02T11:15:00+01:00") == parse_iso("2024-03-02T10:15:00Z")
    with pytest.raises(ValueError):
        parse_iso("last tuesday")


def test_name_keys_ignore_case_punctuation_articles_and_possessives() -> None:
    assert name_key("The Pottery Class!") == name_key("pottery class") == "pottery class"
    assert name_key("Maya's") == "maya"
    assert name_key("my   kids") == "kids"
    assert name_key("Biscuit") != name_key("Pixel")


def test_content_terms_drop_stopwords_and_excluded_names() -> None:
    assert content_terms("What did Maya adopt, and when?", exclude={"maya"}) == ["adopt"]
    assert content_terms("Where's the dog? THE DOG!") == ["dog"]


def test_absolute_dates_become_ranges_most_specific_first() -> None:
    (day,) = time_ranges("the launch is on 12 October 2024")
    assert day.start_ms == parse_iso("2024-10-12T00:00:00Z")
    assert day.end_ms == parse_iso("2024-10-13T00:00:00Z") - 1
    month, year = time_ranges("in May 2023, or else 2022")
    assert month.start_ms == parse_iso("2023-05-01T00:00:00Z")
    assert month.end_ms == parse_iso("2023-06-01T00:00:00Z") - 1
    assert year.label == "2022"
    assert time_ranges("no dates here, may I ask?") == []


def test_a_month_without_a_year_is_that_month_of_any_year_only_when_asked() -> None:
    question = "When did Maya go camping in June?"
    assert time_ranges(question) == []  # ingestion: no date entity from a bare month
    (june,) = time_ranges(question, any_year=True)
    assert june.contains(parse_iso("2023-06-30T23:00:00Z"))
    assert june.contains(parse_iso("1999-06-01T00:00:00Z"))
    assert not june.contains(parse_iso("2023-07-01T00:00:00Z"))
    # a month with its year stays one range; "may" and "march" as verbs are no months
    (may,) = time_ranges("What happened in May 2023?", any_year=True)
    assert may.month is None and not may.contains(parse_iso("2022-05-10T00:00:00Z"))
    assert time_ranges("Maya may march in the parade", any_year=True) == []


def test_relative_dates_resolve_against_the_turn_time() -> None:
    anchor = parse_iso("2023-05-08T13:56:00Z")
    assert relative_dates("I went yesterday", anchor) == [("yesterday", "2023-05-07")]
    assert relative_dates("two years ago", anchor) == [("two years ago", "2021")]
    assert relative_dates("yesterday", None) == []
