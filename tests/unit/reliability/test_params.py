"""The last line of defence before a value reaches an engine: what FalkorDB's text parameter
header (or either engine) cannot store exactly is refused with the parameter's path."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem_neo4j.errors import InputError
from graphmem_neo4j.store.params import INT64_MAX, INT64_MIN, check_params, text_problem

FINE: list[Any] = [
    "plain",
    "quotes ' \" ` and \\ backslashes \\\\ at the end \\",
    "}) DETACH DELETE n // $param",
    "é漢字🙂 \u2028 \u202e \t \n \r \x01 \x7f",
    "",
    0,
    INT64_MAX,
    INT64_MIN,
    -0.0,
    1e308,
    5e-324,
    True,
    None,
    [0.1, 0.2, -0.3],
    ["a", 1, None, [True]],
    {"weird key with spaces": "v", "é": [1, 2]},
]


@pytest.mark.parametrize("value", FINE, ids=repr)
@pytest.mark.parametrize("dialect", ["falkordb", "neo4j"])
def test_storable_values_pass(value: Any, dialect: Any) -> None:
    check_params({"rows": [{"props": {"v": value}}], "space": "s"}, dialect)


@pytest.mark.parametrize(
    ("value", "dialects", "message"),
    [
        ("a\x00b", {"falkordb"}, "NUL"),
        ("half \ud800 surrogate", {"falkordb", "neo4j"}, "not valid Unicode"),
        (math.nan, {"falkordb"}, "not a finite number"),
        (math.inf, {"falkordb"}, "not a finite number"),
        ([0.5, -math.inf], {"falkordb"}, "not a finite number"),
        (INT64_MAX + 1, {"falkordb", "neo4j"}, "64 bits"),
        (INT64_MIN - 1, {"falkordb", "neo4j"}, "64 bits"),
        ({"a`b": 1}, {"falkordb"}, "backtick"),
        ({"": 1}, {"falkordb"}, "non-empty"),
        ({"k\x00": 1}, {"falkordb"}, "NUL"),
    ],
    ids=repr,
)
def test_unstorable_values_are_refused_with_their_path(
    value: Any, dialects: set[str], message: str
) -> None:
    params = {"rows": [{"id": "a"}, {"props": {"text": value}}], "space": "s"}
    for dialect in ("falkordb", "neo4j"):
        if dialect in dialects:
            with pytest.raises(InputError, match=message) as caught:
                check_params(params, dialect)  # type: ignore[arg-type]
            assert caught.value.field is not None
            assert caught.value.field.startswith("rows[1].props.text")
        else:
            check_params(params, dialect)  # type: ignore[arg-type]


def test_a_parameter_name_with_a_backtick_is_refused() -> None:
    with pytest.raises(InputError, match="backtick"):
        check_params({"a`b": 1}, "falkordb")


def test_a_long_embedding_with_one_nan_is_found() -> None:
    vector = [0.01] * 383 + [math.nan]
    with pytest.raises(InputError) as caught:
        check_params({"rows": [{"embedding": vector}]}, "falkordb")
    assert caught.value.field == "rows[0].embedding[383]"
    # an overflowing sum is not mistaken for a non-finite element
    check_params({"v": [1e308, 1e308, 1e308]}, "falkordb")


@given(st.text())
def test_text_problem_is_none_exactly_for_storable_text(text: str) -> None:
    try:
        text.encode("utf-8")
        encodable = True
    except UnicodeEncodeError:
        encodable = False
    assert (text_problem(text) is None) == (encodable and "\x00" not in text)
    assert (text_problem(text, nul=False) is None) == encodable


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_check_params_raises_only_input_errors(value: Any) -> None:
    for dialect in ("falkordb", "neo4j"):
        try:
            check_params({"v": value}, dialect)  # type: ignore[arg-type]
        except InputError as e:
            assert e.field is not None and e.field.startswith("v")
