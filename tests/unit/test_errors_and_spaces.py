import pytest

from graphmem_neo4j.errors import GraphMemError, InputError
from graphmem_neo4j.spaces import validate_space


def test_input_error_names_file_line_and_field() -> None:
    err = InputError("not a string", source="turns.jsonl", line=7, field="text")
    assert str(err) == "turns.jsonl:7, field 'text': not a string"
    assert isinstance(err, GraphMemError) and err.exit_code != 0


@pytest.mark.parametrize("name", ["default", "conv-26", "team_a.v2", "A" * 64])
def test_good_space_names(name: str) -> None:
    assert validate_space(name) == name


@pytest.mark.parametrize(
    "name", ["", "-x", "a b", "a'b", "x}) DETACH DELETE n //", "A" * 65, "é", "a\nb", "`x`"]
)
def test_bad_space_names_are_refused(name: str) -> None:
    with pytest.raises(InputError, match="space"):
        validate_space(name)
