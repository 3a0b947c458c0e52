"""Tool arguments from JSON: a private, strict cattrs converter that forbids unknown
keys and never coerces types ("5" is not 5, true is not 1)."""

from __future__ import annotations

from typing import Any, TypeVar

import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from chat_recall.domain.errors import InvalidArguments

T = TypeVar("T")


def _strict_int(value: Any, _: type) -> int:
    if type(value) is not int:
        raise ValueError(f"expected an integer, got {type(value).__name__}")
    return value


def _strict_str(value: Any, _: type) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True)
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(str, _strict_str)
    return converter


_CONVERTER = _converter()


def _messages(error: BaseException, fields: list[str]) -> list[str]:
    if isinstance(error, ForbiddenExtraKeysError):
        return [
            f"unknown argument(s): {', '.join(sorted(error.extra_fields))}; "
            f"allowed: {', '.join(fields)}"
        ]
    if isinstance(error, ClassValidationError):
        found: list[str] = []
        for inner in error.exceptions:
            found += _messages(inner, fields)
        return found
    notes = " ".join(getattr(error, "__notes__", []))
    if isinstance(error, KeyError):
        name = notes.rsplit("attribute ", 1)[-1] if "attribute " in notes else str(error)
        return [f"missing required argument: {name.strip(chr(39))}"]
    name = notes.rsplit("attribute ", 1)[-1] if "attribute " in notes else ""
    prefix = f"{name}: " if name and not str(error).startswith(name) else ""
    return [f"{prefix}{error}"]


def parse_arguments(raw: object, cls: type[T]) -> T:
    """Structure tool arguments or raise InvalidArguments with a message a model can act
    on (what is wrong and what is allowed)."""
    fields = [field.name for field in cls.__attrs_attrs__]  # type: ignore[attr-defined]
    if not isinstance(raw, dict):
        raise InvalidArguments("arguments must be a JSON object")
    try:
        return _CONVERTER.structure(raw, cls)
    except (ClassValidationError, ValueError, TypeError) as error:
        raise InvalidArguments("; ".join(_messages(error, fields))) from error
