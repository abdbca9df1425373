"""The gate every `graphmem serve` tool call passes before it touches the store."""

from __future__ import annotations

import pytest

from graphmem_neo4j.errors import Forbidden, InputError
from graphmem_neo4j.keys import ApiKey
from graphmem_neo4j.serve import space_for


def key(*spaces: str, read_only: bool = False) -> ApiKey:
    return ApiKey("k1", spaces, read_only, None, 0, None, None)


def test_a_one_space_key_defaults_to_its_space() -> None:
    assert space_for(key("A"), None, writes=True) == "A"
    assert space_for(key("A"), "A", writes=False) == "A"


def test_a_several_space_key_must_name_one() -> None:
    with pytest.raises(InputError, match="several spaces"):
        space_for(key("A", "B"), None, writes=False)
    assert space_for(key("A", "B"), "B", writes=True) == "B"


def test_other_spaces_are_refused_alike_whether_they_exist_or_not() -> None:
    messages = []
    for other in ("B", "no-such-space"):
        with pytest.raises(Forbidden) as refused:
            space_for(key("A"), other, writes=False)
        messages.append(str(refused.value).replace(other, "X"))
    assert messages[0] == messages[1] == "this key may not use space 'X'"
    with pytest.raises(Forbidden):
        space_for(key("A"), ["A"], writes=False)  # type: ignore[arg-type]


def test_read_only_keys_read_but_never_write() -> None:
    assert space_for(key("A", read_only=True), None, writes=False) == "A"
    with pytest.raises(Forbidden, match="read-only"):
        space_for(key("A", read_only=True), None, writes=True)
    with pytest.raises(Forbidden, match="read-only"):
        space_for(key("A", read_only=True), "A", writes=True)


def test_no_key_is_refused() -> None:
    with pytest.raises(Forbidden):
        space_for(None, "A", writes=False)
