"""Tool arguments: declared once, as attrs fields, and from that one declaration come
the validation (a private, strict cattrs converter: unknown keys refused, no type
coercion, see `application/conversion.py`) and the JSON Schema the model is shown.

    @attrs.frozen
    class Arguments:
        query: str = text("Keywords ...", min_length=1, max_length=500)
        limit: int = integer("How many ...", minimum=1, maximum=20, default=8)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from chat_recall.application.conversion import structure
from chat_recall.domain.errors import InvalidArguments
from chat_recall.domain.model import ID_MAX

T = TypeVar("T")

SCHEMA_KEY = "json_schema"


def _range_text(minimum: int | None, maximum: int | None, default: int | None) -> str:
    if minimum is not None and maximum is not None:
        bounds = f"an integer from {minimum} to {maximum}"
    elif minimum is not None:
        bounds = f"an integer of at least {minimum}"
    else:
        bounds = "an integer"
    return bounds + ("" if default is None else f" (default {default})")


def integer(
    description: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    default: int | None = None,
    optional: bool = False,
) -> Any:
    """An integer argument. `default` is filled in when the model leaves it out;
    `optional` keeps it None instead (the tool then knows it was not sent), with
    `default` still shown to the model. Ids are bounded by the storage range."""
    schema: dict[str, Any] = {"type": "integer"}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    if default is not None:
        schema["default"] = default
    schema["description"] = description
    low = minimum
    high = ID_MAX if maximum is None else maximum
    message = _range_text(minimum, maximum, default)

    def check(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
        if value is None:
            return
        if (low is not None and value < low) or value > high:
            suffix = f" of at most {ID_MAX} (2^63-1)" if maximum is None else ""
            raise ValueError(f"{attribute.name} must be {message}{suffix}")

    if optional:
        return attrs.field(default=None, validator=check, metadata={SCHEMA_KEY: schema})
    if default is None:
        return attrs.field(validator=check, metadata={SCHEMA_KEY: schema})
    return attrs.field(default=default, validator=check, metadata={SCHEMA_KEY: schema})


def text(
    description: str,
    *,
    min_length: int,
    max_length: int,
    converter: Callable[[str], str] | None = None,
    hint: str = "",
) -> Any:
    """A string argument, `converter` applied first (e.g. trimming), then its length
    checked in characters."""
    schema = {
        "type": "string",
        "minLength": min_length,
        "maxLength": max_length,
        "description": description,
    }

    def check(instance: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if not min_length <= len(value) <= max_length:
            raise ValueError(f"{attribute.name} must be {min_length}-{max_length} characters{hint}")

    return attrs.field(converter=converter, validator=check, metadata={SCHEMA_KEY: schema})


def optional_text(
    description: str,
    *,
    max_length: int,
    check: Callable[[str], object] | None = None,
) -> Any:
    """A string argument the model may leave out (None), at most `max_length`
    characters; `check` raises ValueError for a value it refuses (its message follows
    the argument's name)."""
    schema = {"type": "string", "maxLength": max_length, "description": description}

    def validate(instance: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
        if value is None:
            return
        if len(value) > max_length:
            raise ValueError(f"{attribute.name} must be at most {max_length} characters")
        if check is not None:
            try:
                check(value)
            except ValueError as error:
                raise ValueError(f"{attribute.name} {error}") from None

    return attrs.field(default=None, validator=validate, metadata={SCHEMA_KEY: schema})


def choice(description: str, options: tuple[str, ...], *, default: str) -> Any:
    """One of `options` (the tool turns it into its enum), `default` when left out."""
    schema = {"type": "string", "enum": list(options), "default": default}
    schema["description"] = description

    def check(instance: object, attribute: attrs.Attribute[Any], value: str) -> None:
        if value not in options:
            allowed = " or ".join(f'"{option}"' for option in options)
            raise ValueError(f"{attribute.name} must be {allowed}")

    return attrs.field(default=default, validator=check, metadata={SCHEMA_KEY: schema})


def flag(description: str, *, default: bool = False) -> Any:
    """A boolean argument, `default` when left out."""
    schema = {"type": "boolean", "default": default, "description": description}
    return attrs.field(default=default, metadata={SCHEMA_KEY: schema})


def json_schema(arguments: type) -> dict[str, Any]:
    """The JSON Schema of an arguments class, from its fields' declarations."""
    fields = attrs.fields(arguments)
    return {
        "type": "object",
        "properties": {field.name: dict(field.metadata[SCHEMA_KEY]) for field in fields},
        "required": [field.name for field in fields if field.default is attrs.NOTHING],
        "additionalProperties": False,
    }


def parse_arguments(raw: object, cls: type[T]) -> T:
    """Structure tool arguments or raise InvalidArguments with a message a model can act
    on (what is wrong and what is allowed)."""
    if not isinstance(raw, dict):
        raise InvalidArguments("arguments must be a JSON object")
    return structure(raw, cls)
