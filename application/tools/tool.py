"""The one protocol every tool implements, and the results a call can end in.

A tool is one module: its `ToolDefinition` (name, description, the argument class the
JSON Schema comes from, card tag), `run` (typed output), the consent preview and the
card. `bootstrap.TOOLS` registers it; the `ToolRegistry` finds it by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import attrs

from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.definitions import ToolDefinition
from chat_recall.domain.errors import ChatRecallError

if TYPE_CHECKING:
    from chat_recall.application.cards import CardBuilder


class ToolResult(Protocol):
    """What every tool output (and `ToolError`) tells telemetry, without content."""

    @property
    def result_count(self) -> int: ...

    @property
    def index_state(self) -> str | None: ...

    @property
    def truncated(self) -> bool: ...


@attrs.frozen
class ErrorOut:
    kind: str
    message: str


@attrs.frozen
class ToolError:
    """A call that failed: `{"error": {"kind": ..., "message": ...}}` for the model."""

    error: ErrorOut

    @classmethod
    def of(cls, error: ChatRecallError) -> ToolError:
        """The error as the model gets it. A message may repeat what the caller sent (an
        unknown argument's name, a value): it is redacted like history, and lone
        surrogates are replaced (they cannot be sent as UTF-8)."""
        from chat_recall.domain.projection import redact_text  # only when a call fails

        return cls(ErrorOut(error.kind, redact_text(str(error)).text))

    @property
    def kind(self) -> str:
        return self.error.kind

    @property
    def result_count(self) -> int:
        return 0

    @property
    def index_state(self) -> str | None:
        return None

    @property
    def truncated(self) -> bool:
        return False


class Tool(Protocol):
    definition: ClassVar[ToolDefinition]

    def run(self, context: CallContext, raw_arguments: object) -> ToolResult:
        """The typed output; raises ChatRecallError for bad arguments or storage."""
        ...

    def preview(self, raw_arguments: Mapping[str, Any]) -> str:
        """What an `ask` approver is shown before the tool runs."""
        ...

    def card(self, cards: CardBuilder, raw_arguments: Mapping[str, Any], payload: Any) -> str:
        """The completed card for the chat UI, from the JSON payload the model got."""
        ...
