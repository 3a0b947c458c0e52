"""The tools as a host offers and calls them: consent (always / ask / never), agent
modes, the completed cards, and content-free telemetry around every call."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from chat_recall.application.cards import CardBuilder
from chat_recall.application.tools.context import AgentMode, CallContext
from chat_recall.application.tools.definitions import DEFINITIONS, Consent, ToolDefinition
from chat_recall.application.tools.output import dumps, error_payload, size
from chat_recall.application.tools.read_chat import ReadChat
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.ports import Clock, Telemetry
from chat_recall.domain.telemetry import ToolCallEvent

log = logging.getLogger("chat_recall.tools")


class ToolUnavailable(ChatRecallError):
    kind = "tool_unavailable"


class ConsentDenied(ChatRecallError):
    kind = "consent_denied"


@attrs.frozen
class ConsentRequest:
    """What an `ask` approver is shown before the tool runs."""

    tool: str
    preview: str
    context: CallContext


Approver = Callable[[ConsentRequest], bool]


def _default_consent() -> Mapping[str, Consent]:
    return {definition.name: definition.default_consent for definition in DEFINITIONS}


@attrs.frozen
class ToolSettings:
    """A host's choices: consent per tool (default `always`), the approver asked under
    `ask` (none means every ask is denied), and the markup prefix of the cards."""

    consent: Mapping[str, Consent] = attrs.field(factory=_default_consent)
    approver: Approver | None = None
    card_prefix: str = "dyad-"

    def consent_for(self, name: str) -> Consent:
        return self.consent.get(name, Consent.ALWAYS)


@attrs.frozen
class ToolOutcome:
    """A finished call: the JSON the model receives and the card the user sees."""

    name: str
    output: str
    card: str

    @property
    def payload(self) -> Any:
        return json.loads(self.output)


# Every mode offers both tools, and they stay read-only in each of them.
MODES_OFFERING_TOOLS = frozenset(AgentMode)


@attrs.define
class ToolRegistry:
    search: SearchChats
    read: ReadChat
    settings: ToolSettings
    telemetry: Telemetry
    clock: Clock

    def offered(self, mode: AgentMode) -> list[ToolDefinition]:
        """The tool definitions to give the model in `mode` (consent `never` hides one)."""
        if mode not in MODES_OFFERING_TOOLS:
            return []
        return [d for d in DEFINITIONS if self.settings.consent_for(d.name) is not Consent.NEVER]

    def call(self, name: str, context: CallContext, arguments: object) -> ToolOutcome:
        started = self.clock.monotonic()
        raw = arguments if isinstance(arguments, dict) else {}
        try:
            definition = self._definition(name, context)
            self._consent(definition, context, raw)
            runner = self.search if name == "search_chats" else self.read
            payload = runner.run(context, arguments)
            outcome = "ok"
        except ChatRecallError as error:
            payload = error_payload(error)
            outcome = error.kind
        except Exception as error:  # a bug must not become the host's traceback
            log.exception("%s failed unexpectedly", name)
            failure = ChatRecallError(
                f"{name} failed unexpectedly ({type(error).__name__}); the host's log has details"
            )
            payload = error_payload(failure)
            outcome = failure.kind
        output = dumps(payload)
        cards = CardBuilder(self.settings.card_prefix)
        card = (
            cards.search_chats(raw, payload)
            if name == "search_chats"
            else cards.read_chat(raw, payload)
        )
        self.telemetry.emit(
            ToolCallEvent(
                tool=name if name in {"search_chats", "read_chat"} else "unknown",
                mode=context.mode.value,
                outcome=outcome,
                duration_ms=(self.clock.monotonic() - started) * 1000,
                result_count=len(payload.get("results", payload.get("messages", []))),
                index_status=payload.get("index_status"),
                truncated=bool(payload.get("results_truncated") or payload.get("output_truncated")),
                output_bytes=size(output),
            )
        )
        return ToolOutcome(name, output, card)

    def _definition(self, name: str, context: CallContext) -> ToolDefinition:
        for definition in self.offered(context.mode):
            if definition.name == name:
                return definition
        raise ToolUnavailable(f"tool {name!r} is not available here")

    def _consent(
        self, definition: ToolDefinition, context: CallContext, arguments: dict[str, Any]
    ) -> None:
        if self.settings.consent_for(definition.name) is not Consent.ASK:
            return
        request = ConsentRequest(definition.name, definition.consent_preview(arguments), context)
        approver = self.settings.approver
        if approver is None or not approver(request):
            raise ConsentDenied(
                f"the user did not allow {definition.name} for this call; continue without it"
            )
