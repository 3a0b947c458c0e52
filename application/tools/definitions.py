"""How a tool presents itself to a model and a host: name, description, the JSON
Schema of its arguments, consent default, the tag of its card, and the shapes OpenAI,
Anthropic and MCP expect. Each tool module declares its own `ToolDefinition`."""

from __future__ import annotations

import enum
from typing import Any

import attrs

from chat_recall.application.tools.arguments import json_schema
from chat_recall.application.tools.json_schema import output_schema


class Consent(enum.Enum):
    ALWAYS = "always"  # run without asking
    ASK = "ask"  # the host's approver sees the preview first
    NEVER = "never"  # the tool is not offered at all


@attrs.frozen
class ToolDefinition:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    # The card's tag after the host's prefix (`dyad-` + `search-chats`). The markup
    # policy drops it, so a stored card never becomes searchable history.
    card_tag: str
    # The JSON Schema of a successful result, generated from the output class.
    output_schema: dict[str, Any] = attrs.field(factory=dict)
    default_consent: Consent = Consent.ALWAYS
    modifies_state: bool = False
    uses_engine_endpoint: bool = False
    # Answers from the index (not from the host's live rows): a server that runs the
    # indexer itself lets it catch up briefly before such a call.
    reads_index: bool = False

    @classmethod
    def of(
        cls,
        name: str,
        title: str,
        description: str,
        arguments: type,
        output: type,
        *,
        card_tag: str,
        reads_index: bool = False,
    ) -> ToolDefinition:
        """A read-only tool whose input schema comes from its arguments class and whose
        output schema from its output class."""
        return cls(
            name,
            title,
            description,
            json_schema(arguments),
            card_tag,
            output_schema(output),
            reads_index=reads_index,
        )

    def openai(self) -> dict[str, Any]:
        """OpenAI function calling (`tools=[...]`)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.input_schema,
            },
        }

    def anthropic(self) -> dict[str, Any]:
        """Anthropic tool use (`tools=[...]`)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    def mcp(self) -> dict[str, Any]:
        """MCP `tools/list` entry, with read-only annotations."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "annotations": {
                "title": self.title,
                "readOnlyHint": not self.modifies_state,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            },
        }
