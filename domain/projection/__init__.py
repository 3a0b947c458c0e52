"""Role-aware projections of chat messages and the markup policy they follow."""

from chat_recall.domain.projection.policy import (
    DEFAULT_POLICY,
    DEFAULT_RULES,
    DEFAULT_TAG_PATTERN,
    BodyRule,
    MarkupPolicy,
    TagClass,
    TagRule,
)
from chat_recall.domain.projection.project import (
    PROJECTION_MAX_BYTES,
    PROJECTION_TAIL_BYTES,
    PROJECTION_VERSION,
    Projection,
    ProjectionMode,
    project_for_read,
    project_for_search,
    redact_title,
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
    "project_for_read",
    "project_for_search",
    "redact_title",
]
