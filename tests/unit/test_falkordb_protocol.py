"""Our FalkorDB protocol code without a server: the parameter header, compact replies, RESP."""

from __future__ import annotations

import hiredis
import pytest

from graphmem_neo4j.store.falkordb_protocol import (
    Schema,
    cypher_literal,
    parse_result,
    with_parameters,
)
from graphmem_neo4j.store.resp import ServerError, encode, parse_info


def test_parameter_header_quotes_strings_and_keys() -> None:
    text = with_parameters(
        "RETURN $a",
        {"a": 'say "hi" \\ bye', "n": None, "flag": True, "xs": [1, 2.5], "m": {"k-1": "v"}},
    )
    assert text == (
        'CYPHER a="say \\"hi\\" \\\\ bye" n=null flag=true xs=[1,2.5] m={`k-1`:"v"} RETURN $a'
    )
    assert with_parameters("RETURN 1", {}) == "RETURN 1"
    assert cypher_literal(0.1 + 0.2) == "0.30000000000000004"  # floats keep every digit


def test_a_compact_reply_becomes_rows_of_plain_values() -> None:
    names = {
        "core/schema_property_keys": ["space", "id", "weight"],
        "core/schema_labels": ["Turn"],
        "core/schema_relationship_types": ["NEXT"],
    }
    asked: list[str] = []

    def run(query: str) -> list[object]:
        asked.append(query)
        return [[[1, "name"]], [[[2, name]] for name in names[query]], []]

    node_a = [8, [0, [0], [[0, 2, "s"], [1, 2, "a"]]]]
    node_b = [8, [1, [0], [[0, 2, "s"], [1, 2, "b"]]]]
    edge = [7, [5, 0, 0, 1, [[2, 5, "0.5"]]]]
    reply = [
        [[1, "n"], [1, "x"], [1, "path"], [1, "m"]],
        [
            [
                node_a,
                [6, [[3, 7], [5, "1.5"], [4, "true"], [1, None]]],
                [9, [[6, [node_a, node_b]], [6, [edge]]]],
                [10, ["k", [12, ["0.25", "1"]]]],
            ],
        ],
        ["Cached execution: 0"],
    ]
    header, rows = parse_result(reply, Schema(run))
    assert header == ["n", "x", "path", "m"]
    (row,) = rows
    assert row[0] == {"space": "s", "id": "a"}
    assert row[1] == [7, 1.5, True, None]
    assert row[2] == [{"space": "s", "id": "a"}, {"weight": 0.5}, {"space": "s", "id": "b"}]
    assert row[3] == {"k": [0.25, 1.0]}
    assert asked == ["core/schema_property_keys"]  # fetched once, when first needed


def test_statistics_only_and_errors_in_the_reply() -> None:
    assert parse_result([["Nodes created: 1"]], Schema(lambda q: [])) == ([], [])
    failed = [["Query internal execution time: 1"], hiredis.ReplyError("Type mismatch")]
    with pytest.raises(ServerError, match="Type mismatch"):
        parse_result(failed, Schema(lambda q: []))


def test_resp_encoding_and_info() -> None:
    assert encode(("SET", "k", 42)) == b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n42\r\n"
    assert encode(("GET", "é")) == b"*2\r\n$3\r\nGET\r\n$2\r\n\xc3\xa9\r\n"
    info = parse_info("# Server\r\nredis_version:7.4.1\r\nprocess_id:12\r\n")
    assert info == {"redis_version": "7.4.1", "process_id": "12"}
    assert ServerError("WRONGPASS invalid username-password pair").code == "WRONGPASS"
