"""Credentials never reach the index or a tool's output: the redaction policy."""

from chat_recall.domain.redaction.policy import (
    DEFAULT_REDACTION,
    REDACTION_VERSION,
    RedactionPolicy,
)
from chat_recall.domain.redaction.redactor import Redaction, Redactor, redact
from chat_recall.domain.redaction.rules import (
    Check,
    SecretRule,
    count_placeholders,
    placeholder,
    provider_rules,
)

__all__ = [
    "DEFAULT_REDACTION",
    "REDACTION_VERSION",
    "Check",
    "Redaction",
    "RedactionPolicy",
    "Redactor",
    "SecretRule",
    "count_placeholders",
    "placeholder",
    "provider_rules",
    "redact",
]
