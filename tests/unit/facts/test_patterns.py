import pytest

from graphmem_neo4j.facts.patterns import (
    Statement,
    parse_statement,
    parse_statements,
    question_hints,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Alice lives in Paris.", Statement("Alice", "lives_in", "Paris", "location", None, None)),
        (
            "Bob's employer is Acme since 2021.",
            Statement("Bob", "employer", "Acme", "organisation", None, "2021"),
        ),
        (
            "Carol moved to Berlin in March 2022",
            Statement("Carol", "lives_in", "Berlin", "location", None, "2022-03"),
        ),
        (
            "Dave works at Initech as of 2020-05-01",
            Statement("Dave", "works_at", "Initech", "organisation", None, "2020-05-01"),
        ),
        (
            "Alice drinks tea in the evening.",
            Statement("Alice", "drinks", "tea", "preference", "in the evening", None),
        ),
        (
            "In the evening, Alice drinks green tea",
            Statement("Alice", "drinks", "green tea", "preference", "In the evening", None),
        ),
        (
            "The capital of France is Paris.",
            Statement("France", "capital", "Paris", "location", None, None),
        ),
        ("Erin is a nurse", Statement("Erin", "is_a", "nurse", "role", None, None)),
        ("Gina teaches maths", Statement("Gina", "teaches", "maths", "general", None, None)),
        (
            "Hank moved to New York City on 4 July 2019",
            Statement("Hank", "lives_in", "New York City", "location", None, "2019-07-04"),
        ),
    ],
)
def test_simple_statements_become_facts(text: str, expected: Statement) -> None:
    assert parse_statement(text) == expected


@pytest.mark.parametrize("text", ["hello there", "Where does Alice live?", "", "it rains"])
def test_anything_else_is_skipped(text: str) -> None:
    assert parse_statement(text) is None


def test_a_text_yields_one_fact_per_readable_sentence() -> None:
    found = parse_statements("Alice lives in Paris. Nice weather! Bob works at Acme since 2020.")
    assert [(s.subject, s.object) for s in found] == [("Alice", "Paris"), ("Bob", "Acme")]


def test_question_hints_carry_names_words_and_condition() -> None:
    hints = question_hints("What does Bob Smith drink in the evening?")
    assert hints.phrases.index("bob smith") < hints.phrases.index("bob")
    assert {"drink", "bob", "smith"} <= hints.terms
    assert hints.context == "evening"
    assert hints.category_hint is None
    assert question_hints("Where does Alice live?").category_hint == "location"
    assert question_hints("Who is Bob's manager?").category_hint == "person"
