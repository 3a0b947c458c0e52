"""Tools are objects behind one protocol, found by name in the registry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

import chat_recall
from chat_recall.adapters import bootstrap
from chat_recall.adapters.system_clock import SystemClock
from chat_recall.adapters.telemetry import RecordingTelemetry
from chat_recall.application.cards import CardBuilder
from chat_recall.application.tools.arguments import integer, json_schema, parse_arguments
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.definitions import ToolDefinition
from chat_recall.application.tools.registry import ToolRegistry, ToolSettings
from chat_recall.application.tools.tool import ToolError
from chat_recall.domain.messages import MessageText, Role
from chat_recall.domain.projection import project_for_search


def test_an_unknown_tool_is_an_error_never_another_tools_card() -> None:
    telemetry = RecordingTelemetry()
    with bootstrap.in_memory(overrides={chat_recall.Telemetry: telemetry}) as recall:
        outcome = recall.call_tool("search_chat", CallContext(1), {"query": "x"})
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert outcome.card is None
    assert json.loads(outcome.output)["error"]["kind"] == "unknown_tool"
    assert "search_chats" in json.loads(outcome.output)["error"]["message"]
    (event,) = telemetry.events
    assert event.tool == "unknown"  # type: ignore[union-attr]


def test_outcomes_carry_the_typed_result() -> None:
    with bootstrap.in_memory() as recall:
        chat_id = recall.host.create_chat(1, "Auth", 1)
        recall.host.add_message(chat_id, Role.USER, "argon2", 2)
        recall.wait_until_indexed()
        found = recall.call_tool("search_chats", CallContext(1), {"query": "argon2"})
        missing = recall.call_tool("read_chat", CallContext(1), {"chat_id": 999})
    assert not found.is_error
    assert found.result.result_count == 1
    assert isinstance(missing.result, ToolError)
    assert missing.result.kind == "not_found"
    assert missing.card is not None
    assert 'state="error"' in missing.card


@attrs.frozen
class EchoArguments:
    times: int = integer("How often.", minimum=1, maximum=3, default=1)


@attrs.frozen
class EchoOutput:
    echoed: list[str]

    @property
    def result_count(self) -> int:
        return len(self.echoed)

    @property
    def index_state(self) -> str | None:
        return None

    @property
    def truncated(self) -> bool:
        return False


@attrs.define
class Echo:
    """A third tool: one class, registered without touching the other tools."""

    definition: ClassVar[ToolDefinition] = ToolDefinition.of(
        "echo", "Echo", "Says hello.", EchoArguments, EchoOutput, card_tag="echo"
    )

    def run(self, context: CallContext, raw_arguments: object) -> EchoOutput:
        arguments = parse_arguments(raw_arguments, EchoArguments)
        return EchoOutput(["hello"] * arguments.times)

    def preview(self, raw_arguments: Mapping[str, Any]) -> str:
        return "Say hello."

    def card(self, cards: CardBuilder, raw_arguments: Mapping[str, Any], payload: Any) -> str:
        return f"<{cards.prefix}{self.definition.card_tag}/>"


def test_a_new_tool_is_one_class_and_one_registration() -> None:
    with bootstrap.in_memory() as recall:
        tools = [recall.registry.tool(name) for name in recall.registry.names()]
    registry = ToolRegistry.of(
        [*tools, Echo()], ToolSettings(), RecordingTelemetry(), SystemClock()
    )
    assert [d.name for d in registry.offered(chat_recall.AgentMode.ASK)] == [
        "search_chats",
        "read_chat",
        "list_chats",
        "echo",
    ]
    outcome = registry.call("echo", CallContext(1), {"times": 2})
    assert json.loads(outcome.output) == {"echoed": ["hello", "hello"]}
    assert outcome.card == "<dyad-echo/>"
    assert registry.call("echo", CallContext(1), {"times": 9}).is_error
    assert Echo.definition.input_schema == json_schema(EchoArguments)


def test_every_tools_card_is_dropped_by_the_projection_whatever_the_prefix() -> None:
    settings = ToolSettings(card_prefix="acme-")
    with bootstrap.in_memory(tools=settings) as recall:
        for name in recall.registry.names():
            tag = f"acme-{recall.registry.tool(name).definition.card_tag}"
            stored = f'kept <{tag} query="x">CARDBODY</{tag}>'
            projection = project_for_search(MessageText.assistant(stored), recall.policy)
            assert "CARDBODY" not in projection.text
            assert "kept" in projection.text


def test_an_argument_name_that_is_no_string_gets_a_structured_error() -> None:
    """A host calls call_tool with a Python dict, whose keys may be anything."""
    recall = bootstrap.in_memory()
    for name, arguments in (
        ("search_chats", {1: 2}),
        ("read_chat", {"chat_id": 1, 7: 2}),
        ("list_chats", {3: 4}),
    ):
        error = json.loads(recall.call_tool(name, CallContext(1), arguments).output)["error"]
        assert error == {"kind": "invalid_arguments", "message": "argument names must be strings"}
