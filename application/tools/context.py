"""The call context a host passes with every tool call. Tool arguments never carry an
app id or a path: scope comes from here."""

from __future__ import annotations

import enum

import attrs

from chat_recall.domain.errors import InvalidArguments
from chat_recall.domain.model import AppId, ChatId, MessageId, is_storable_id


class AgentMode(enum.Enum):
    AGENT = "agent"
    ASK = "ask"
    PLAN = "plan"
    BASIC = "basic"


@attrs.frozen
class CallContext:
    """`chat_id` is the chat the agent works in (excluded from search; readable up to
    the in-flight `message_id`)."""

    app_id: AppId = attrs.field(validator=lambda _, a, v: _storable(a.name, v))
    chat_id: ChatId | None = attrs.field(
        default=None, validator=lambda _, a, v: _storable(a.name, v)
    )
    message_id: MessageId | None = attrs.field(
        default=None, validator=lambda _, a, v: _storable(a.name, v)
    )
    mode: AgentMode = AgentMode.AGENT


def _storable(name: str, value: int | None) -> None:
    """A context id that no storage engine could hold is refused before any call."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or not is_storable_id(value):
        raise InvalidArguments(f"{name} must be a 64-bit integer (-2^63 to 2^63-1)")
