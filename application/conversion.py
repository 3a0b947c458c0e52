"""The one cattrs converter of chat-recall, private to this module: strict structuring
of untrusted JSON (tool arguments, import lines) and unstructuring of the typed outputs.

Strict: unknown keys are refused and types are never coerced ("5" is not 5, true is
not 1). Every failure becomes one `InvalidArguments` whose message says what is wrong,
where, and what is allowed, through one `cattrs.transform_error` pass.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.errors import ForbiddenExtraKeysError
from cattrs.gen import make_dict_unstructure_fn, override

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


def _strict_bool(value: Any, _: type) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {type(value).__name__}")
    return value


def _converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True)
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(bool, _strict_bool)
    return converter


_CONVERTER = _converter()


def omit_when_default(cls: type, *names: str) -> None:
    """Leave these fields out of `cls`'s unstructured form while they hold their
    default (e.g. an optional section that is None)."""
    overrides: dict[str, Any] = {name: override(omit_if_default=True) for name in names}
    _CONVERTER.register_unstructure_hook(
        cls, make_dict_unstructure_fn(cls, _CONVERTER, **overrides)
    )


def unstructure(value: object) -> Any:
    return _CONVERTER.unstructure(value)


def _describe(error: BaseException, expected: type | None) -> str:
    if isinstance(error, ForbiddenExtraKeysError):
        return f"unknown field(s): {', '.join(sorted(error.extra_fields))}"
    if isinstance(error, KeyError):
        return "missing required field"
    if isinstance(error, ValueError | TypeError) and str(error):
        return str(error)
    return cattrs.v.format_exception(error, expected)


def failure_messages(error: BaseException, allowed: list[str], noun: str) -> list[str]:
    """A structuring failure as messages: `noun` names what the fields are (e.g.
    "argument"), `allowed` lists the accepted names."""
    messages = []
    for line in cattrs.transform_error(error, path="$", format_exception=_describe):
        message, _, path = line.rpartition(" @ ")
        name = path.removeprefix("$").removeprefix(".")
        if message.startswith("unknown field"):
            message = message.replace("field", noun, 1) + f"; allowed: {', '.join(allowed)}"
        elif message == "missing required field":
            message = f"missing required {noun}: {name}"
        elif name and not message.startswith(name):
            message = f"{name}: {message}"
        messages.append(message)
    return messages


def structure(raw: object, cls: type[T], *, noun: str = "argument") -> T:
    """An instance of attrs class `cls` from untrusted JSON, or InvalidArguments."""
    if not isinstance(raw, dict):
        raise InvalidArguments(f"expected a JSON object of {noun}s")
    if not all(isinstance(name, str) for name in raw):  # a host's Python dict may hold any
        raise InvalidArguments(f"{noun} names must be strings")
    allowed = [field.name for field in attrs.fields(cls)]  # type: ignore[arg-type]
    try:
        return _CONVERTER.structure(raw, cls)
    except (cattrs.BaseValidationError, ValueError, TypeError) as error:
        raise InvalidArguments("; ".join(failure_messages(error, allowed, noun))) from error
