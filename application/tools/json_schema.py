"""JSON Schemas of the tools' outputs, generated from their attrs output classes, so the
schema an MCP client validates (`outputSchema`) is the shape the tool actually returns
and is never written by hand. (Argument schemas come from the fields' declarations, in
`arguments.py`.)

Covers the types the output classes use: int, float, str, bool, None, unions
(`X | None`), `list[T]`, `dict[str, T]`, `Literal[...]` and nested attrs classes. A field
with a default may be absent from the JSON (search_chats leaves out `index_coverage`
when it is None); every other field is required. Extra keys are refused, as the output
types are closed.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import attrs

_SCALARS: dict[Any, str] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    type(None): "null",
}


def output_schema(cls: type) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12 subset) of what cattrs unstructures `cls` to."""
    schema = _object_schema(cls)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def _object_schema(cls: type) -> dict[str, Any]:
    attrs.resolve_types(cls)
    properties = {}
    required = []
    for field in attrs.fields(cls):
        properties[field.name] = _type_schema(field.type)
        if field.default is attrs.NOTHING:
            required.append(field.name)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _type_schema(annotation: Any) -> dict[str, Any]:
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if attrs.has(annotation):
        return _object_schema(annotation)
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin in (types.UnionType, typing.Union):
        options = [_type_schema(option) for option in arguments]
        if all(set(option) == {"type"} and isinstance(option["type"], str) for option in options):
            return {"type": [option["type"] for option in options]}
        return {"anyOf": options}
    if origin is list:
        return {"type": "array", "items": _type_schema(arguments[0])}
    if origin is dict and arguments[0] is str:
        return {"type": "object", "additionalProperties": _type_schema(arguments[1])}
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    raise TypeError(f"no JSON Schema for {annotation!r}")
