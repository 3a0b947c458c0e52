"""The call context a host passes with every tool call. Tool arguments never carry an
app id or a path: scope comes from here."""

from __future__ import annotations

import enum

import attrs

from chat_recall.domain.model import AppId, ChatId, MessageId


class AgentMode(enum.Enum):
    AGENT = "agent"
    ASK = "ask"
    PLAN = "plan"
    BASIC = "basic"


@attrs.frozen
class CallContext:
    """`chat_id` is the chat the agent works in (excluded from search; readable up to
    the in-flight `message_id`)."""

    app_id: AppId
    chat_id: ChatId | None = None
    message_id: MessageId | None = None
    mode: AgentMode = AgentMode.AGENT
