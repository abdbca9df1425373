from hypothesis import given
from hypothesis import strategies as st

from graphmem_neo4j.conversation.text import content_terms
from graphmem_neo4j.fulltext import fulltext_query, stem_keys, stem_lookup, terms

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


def test_stem_keys_hold_each_token_and_the_stem_of_longer_ones() -> None:
    """FalkorDB's index stems tokens of four characters or more ("cats" finds "cat", "ads"
    does not find "ad") and splits "Caroline's" at the apostrophe; the entries say the same."""
    keys = stem_keys("Caroline's cats used ads; focused EVENING")
    assert keys.split() == [
        "caroline",
        "carolin",
        "s",
        "cats",
        "cat",
        "used",
        "use",
        "ads",
        "focused",
        "focus",
        "evening",
        "even",
    ]


def test_a_lookup_is_the_word_or_its_snowball_stem() -> None:
    """Snowball, not Porter: "use" stays "use" (Porter: "us"), "focus" stays "focus" (Porter:
    "focu"), so neither finds a turn the other engine does not."""
    assert stem_lookup("used") == "used use"
    assert stem_lookup("use") == "use"
    assert stem_lookup("focus") == "focus"
    assert stem_lookup("trying") == "trying tri"
    assert stem_lookup("trying").split()[1] in stem_keys("I tried it").split()


@given(st.text())
def test_lookups_hold_no_query_syntax(text: str) -> None:
    for term in content_terms(text):
        assert not (set(stem_lookup(term)) & (LUCENE_SPECIAL | {"@", "%", "$", "'", ";"}))
