"""Role-aware projections of chat messages and the markup policy they follow.

The policy names are loaded with the package; the projection itself (`project`, the
scanner, the redaction it applies) on first use of one of its names, so a process that
only searches (the CLI's `search`) never loads it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from chat_recall.domain.projection.policy import (
    DEFAULT_POLICY,
    DEFAULT_RULES,
    DEFAULT_TAG_PATTERN,
    BodyRule,
    MarkupPolicy,
    TagClass,
    TagRule,
)

if TYPE_CHECKING:
    from chat_recall.domain.projection.project import (
        PROJECTION_MAX_BYTES,
        PROJECTION_TAIL_BYTES,
        PROJECTION_VERSION,
        Projection,
        ProjectionMode,
        project_content_for_search,
        project_for_read,
        project_for_search,
        redact_text,
        redact_title,
    )

_PROJECT = "chat_recall.domain.projection.project"
_LAZY = frozenset(
    {
        "PROJECTION_MAX_BYTES",
        "PROJECTION_TAIL_BYTES",
        "PROJECTION_VERSION",
        "Projection",
        "ProjectionMode",
        "project_content_for_search",
        "project_for_read",
        "project_for_search",
        "redact_text",
        "redact_title",
    }
)

__all__ = [
    "DEFAULT_POLICY",
    "DEFAULT_RULES",
    "DEFAULT_TAG_PATTERN",
    "PROJECTION_MAX_BYTES",
    "PROJECTION_TAIL_BYTES",
    "PROJECTION_VERSION",
    "BodyRule",
    "MarkupPolicy",
    "Projection",
    "ProjectionMode",
    "TagClass",
    "TagRule",
    "project_content_for_search",
    "project_for_read",
    "project_for_search",
    "redact_text",
    "redact_title",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_PROJECT), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
