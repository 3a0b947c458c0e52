"""The tools as a host offers and calls them: found by name, consent (always / ask /
never), agent modes, the completed cards, and content-free telemetry around every call."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from chat_recall.application.conversion import unstructure
from chat_recall.application.tools.context import AgentMode, CallContext
from chat_recall.application.tools.definitions import Consent, ToolDefinition
from chat_recall.application.tools.output import dumps, size
from chat_recall.application.tools.tool import Tool, ToolError, ToolResult
from chat_recall.domain.errors import ChatRecallError
from chat_recall.domain.ports import Clock, Telemetry
from chat_recall.domain.redaction import count_placeholders
from chat_recall.domain.telemetry import ToolCallEvent


class UnknownTool(ChatRecallError):
    """No tool of that name is registered (a host bug or a model's invented name)."""

    kind = "unknown_tool"


class ToolUnavailable(ChatRecallError):
    """The tool exists but is not offered here (its consent is `never`, or the mode
    offers no tools)."""

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


@attrs.frozen
class ToolSettings:
    """A host's choices: consent per tool name (a tool's own default otherwise, which
    is `always` for every shipped tool), the approver asked under `ask` (none means
    every ask is denied), and the markup prefix of the cards."""

    consent: Mapping[str, Consent] = attrs.field(factory=dict)
    approver: Approver | None = None
    card_prefix: str = "dyad-"
    # The semantic layer's own consent: asked, with the disclosure of where text goes,
    # before a remote embedder sends anything (None: only a consent the user recorded
    # with the index counts). A local model needs none: nothing leaves the machine.
    semantic_approver: Callable[[str], bool] | None = None

    def consent_for(self, definition: ToolDefinition) -> Consent:
        return self.consent.get(definition.name, definition.default_consent)


@attrs.frozen
class ToolOutcome:
    """A finished call: the JSON the model receives (`output`), the card the user sees
    (None when no tool of that name exists), and the typed `result` (the tool's output
    class, or `ToolError`)."""

    name: str
    output: str
    result: ToolResult
    _render_card: Callable[[], str | None] = attrs.field(default=lambda: None, repr=False, eq=False)

    @functools.cached_property
    def card(self) -> str | None:
        """Built on first use: drivers that never show a card (the CLI, the MCP server)
        never load lxml for it."""
        return self._render_card()

    @property
    def is_error(self) -> bool:
        return isinstance(self.result, ToolError)

    @property
    def error(self) -> ToolError | None:
        return self.result if isinstance(self.result, ToolError) else None


# Every mode offers every tool, and they stay read-only in each of them.
MODES_OFFERING_TOOLS = frozenset(AgentMode)


@attrs.define
class ToolRegistry:
    settings: ToolSettings
    telemetry: Telemetry
    clock: Clock
    _tools: dict[str, Tool] = attrs.field(factory=dict)

    @classmethod
    def of(
        cls, tools: Iterable[Tool], settings: ToolSettings, telemetry: Telemetry, clock: Clock
    ) -> ToolRegistry:
        return cls(settings, telemetry, clock, {tool.definition.name: tool for tool in tools})

    def names(self) -> list[str]:
        return list(self._tools)

    def tool(self, name: str) -> Tool:
        """The registered tool of that name (UnknownTool otherwise)."""
        found = self._tools.get(name)
        if found is None:
            raise UnknownTool(f"there is no tool named {name!r}")
        return found

    def offered(self, mode: AgentMode) -> list[ToolDefinition]:
        """The tool definitions to give the model in `mode` (consent `never` hides one)."""
        if mode not in MODES_OFFERING_TOOLS:
            return []
        return [
            tool.definition
            for tool in self._tools.values()
            if self.settings.consent_for(tool.definition) is not Consent.NEVER
        ]

    def call(self, name: str, context: CallContext, arguments: object) -> ToolOutcome:
        started = self.clock.monotonic()
        raw: Mapping[str, Any] = arguments if isinstance(arguments, dict) else {}
        tool = self._tools.get(name)
        result: ToolResult
        try:
            if tool is None:
                raise UnknownTool(
                    f"there is no tool named {name!r}; the tools are {', '.join(self._tools)}"
                )
            self._check_offered(tool, context, raw)
            result = tool.run(context, arguments)
        except ChatRecallError as error:
            result = ToolError.of(error)
        except Exception as error:  # a bug must not become the host's traceback
            import logging  # here: a call that goes well does not load logging

            logging.getLogger("chat_recall.tools").exception("%s failed unexpectedly", name)
            result = ToolError.of(
                ChatRecallError(
                    f"{name} failed unexpectedly ({type(error).__name__}); "
                    "the host's log has details"
                )
            )
        payload = unstructure(result)
        output = dumps(payload)
        card = None if tool is None else functools.partial(self._card, tool, dict(raw), payload)
        self.telemetry.emit(
            ToolCallEvent(
                tool=name if tool is not None else "unknown",
                mode=context.mode.value,
                outcome=result.kind if isinstance(result, ToolError) else "ok",
                duration_ms=(self.clock.monotonic() - started) * 1000,
                result_count=result.result_count,
                index_status=result.index_state,
                truncated=result.truncated,
                output_bytes=size(output),
                redactions=count_placeholders(output),
            )
        )
        if card is None:
            return ToolOutcome(name, output, result)
        return ToolOutcome(name, output, result, card)

    def _card(self, tool: Tool, raw: Mapping[str, Any], payload: Any) -> str:
        from chat_recall.application.cards import CardBuilder

        return tool.card(CardBuilder(self.settings.card_prefix), raw, payload)

    def _check_offered(self, tool: Tool, context: CallContext, raw: Mapping[str, Any]) -> None:
        definition = tool.definition
        consent = self.settings.consent_for(definition)
        if context.mode not in MODES_OFFERING_TOOLS or consent is Consent.NEVER:
            raise ToolUnavailable(f"tool {definition.name!r} is not available here")
        if consent is not Consent.ASK:
            return
        request = ConsentRequest(definition.name, tool.preview(raw), context)
        approver = self.settings.approver
        if approver is None or not approver(request):
            raise ConsentDenied(
                f"the user did not allow {definition.name} for this call; continue without it"
            )
