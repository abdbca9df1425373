"""Test oracles: how Neo4j Browser reads what we hand it, re-implemented from its documented
behaviour (the GraSS parser, the post-connect command splitter) and Cypher's string escapes."""

from __future__ import annotations

import re


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """Browser's GraSS parser: selector { key: value; ... }. Quotes (' or ") are dropped and
    protect braces inside them; a declaration that does not split into exactly two parts on
    ':' is ignored; no comments."""
    rules: dict[str, str] = {}
    inside_string = inside_props = inside_binding = False
    keyword = props = ""
    for char in text:
        skip = True
        if char == "{":
            if inside_string:
                skip = False
            elif inside_props:
                inside_binding = True
            else:
                inside_props = True
        elif char == "}":
            if inside_string:
                skip = False
            elif inside_binding:
                inside_binding = False
            else:
                inside_props = False
                rules[keyword] = props
                keyword = props = ""
        elif char in "'\"":
            inside_string = not inside_string
        else:
            skip = False
        if skip:
            continue
        if inside_props:
            props += char
        elif not char.isspace():
            keyword += char
    parsed: dict[str, dict[str, str]] = {}
    for selector, body in rules.items():
        parsed[selector] = {}
        for declaration in body.split(";"):
            parts = declaration.split(":")
            if len(parts) == 2:
                parsed[selector][parts[0].strip()] = parts[1].strip()
    return parsed


def split_post_connect(value: str) -> list[str]:
    """How Browser splits `browser.post_connect_cmd`: on ';' outside quotes."""
    protected = re.sub(
        r"(`[^`]*?`|\"[^\"]*?\"|'[^']*?')", lambda m: m.group(0).replace(";", "\0"), value
    )
    return [part.strip().replace("\0", ";") for part in protected.split(";") if part.strip()]


_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def decode_cypher_string(literal: str) -> str:
    """The value of a single-quoted Cypher string literal (Cypher manual, string escapes)."""
    assert literal[0] == literal[-1] == "'", literal
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char == "'":
            raise ValueError(f"unescaped quote at {i}")
        if char != "\\":
            out.append(char)
            i += 1
            continue
        kind = body[i + 1]
        if kind == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        elif kind == "U":
            out.append(chr(int(body[i + 2 : i + 10], 16)))
            i += 10
        else:
            out.append(_ESCAPES[kind])
            i += 2
    return "".join(out)
