from hypothesis import given
from hypothesis import strategies as st

from graphmem_neo4j.fulltext import fulltext_query, terms

LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


def test_terms_drop_stopwords_and_punctuation() -> None:
    assert terms("When did Caroline go to the LGBTQ support-group?") == [
        "caroline",
        "go",
        "lgbtq",
        "support",
        "group",
    ]


def test_nothing_searchable_gives_none() -> None:
    assert fulltext_query("the of a ?!", "neo4j") is None


@given(st.text())
def test_no_query_syntax_survives(text: str) -> None:
    for dialect in ("neo4j", "falkordb"):
        query = fulltext_query(text, dialect)  # type: ignore[arg-type]
        if query is None:
            continue
        body = query.replace(" OR ", " ") if dialect == "neo4j" else query.replace("|", " ")
        assert not (set(body) & (LUCENE_SPECIAL | {"@", "%", "$", "'", ";"}))
