"""Tool definitions: schema snapshots per provider shape (any change shows in review),
and the schemas agree with what the argument parser accepts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.application.tools.context import AgentMode, CallContext
from chat_recall.application.tools.read_chat import ReadChat
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.domain.messages import Role

SEARCH_CHATS = SearchChats.definition
READ_CHAT = ReadChat.definition
DEFINITIONS = [definition.definition for definition in bootstrap.TOOLS]

SNAPSHOTS = Path(__file__).parent.parent / "snapshots"


@pytest.mark.parametrize("shape", ["openai", "anthropic", "mcp"])
def test_exported_schemas_match_their_snapshots(shape: str) -> None:
    exported = [getattr(definition, shape)() for definition in DEFINITIONS]
    text = json.dumps(exported, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    snapshot = SNAPSHOTS / f"tools.{shape}.json"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        snapshot.write_text(text, encoding="utf-8")
    assert snapshot.read_text(encoding="utf-8") == text, (
        f"tool schema changed; review it and run UPDATE_SNAPSHOTS=1 pytest {__file__}"
    )


def test_metadata_is_read_only_with_always_consent() -> None:
    for definition in DEFINITIONS:
        assert definition.default_consent.value == "always"
        assert definition.modifies_state is False
        assert definition.uses_engine_endpoint is False
        assert definition.mcp()["annotations"]["readOnlyHint"] is True
        assert "app_id" not in definition.input_schema["properties"]
        assert definition.input_schema["additionalProperties"] is False


def test_descriptions_route_the_model() -> None:
    assert "code search" in SEARCH_CHATS.description
    assert "read_chat" in SEARCH_CHATS.description
    assert "around_message_id" in SEARCH_CHATS.description
    assert "around_message_id" in READ_CHAT.description
    listing = next(d for d in DEFINITIONS if d.name == "list_chats")
    assert "read_chat" in listing.description
    assert "continue_with" in listing.description


def test_consent_previews_match_the_design() -> None:
    recall = bootstrap.in_memory()
    search = recall.registry.tool("search_chats")
    read = recall.registry.tool("read_chat")
    assert search.preview({"query": " auth "}) == (
        'Search historical chats for this app for "auth" and provide matching excerpts '
        "to the active AI model (credentials such as API keys and passwords are redacted)."
    )
    assert "around message 9" in read.preview({"chat_id": 3, "around_message_id": 9})
    assert "chat 3" in read.preview({"chat_id": 3})
    assert "credentials such as API keys" in read.preview({"chat_id": 3})
    listing = recall.registry.tool("list_chats")
    assert listing.preview({"after": "2024-05-01"}) == (
        "List historical chats of this app by time (from 2024-05-01) and provide their "
        "titles and first messages to the active AI model (credentials such as API keys "
        "and passwords are redacted)."
    )


def test_descriptions_say_that_credentials_are_redacted() -> None:
    for definition in DEFINITIONS:
        assert "Credentials" in definition.description
        assert "[redacted " in definition.description


def test_schema_defaults_and_bounds_are_what_the_parser_enforces() -> None:
    recall = bootstrap.in_memory()
    chat_id = recall.host.create_chat(1, "t", 1)
    recall.host.add_message(chat_id, Role.USER, "x", 2)
    schema = SEARCH_CHATS.input_schema["properties"]
    limit = schema["limit"]
    for value, ok in (
        (limit["minimum"], True),
        (limit["maximum"], True),
        (limit["minimum"] - 1, False),
        (limit["maximum"] + 1, False),
    ):
        output = json.loads(recall.search_chats(CallContext(1), {"query": "x", "limit": value}))
        assert ("error" not in output) is ok
    read = READ_CHAT.input_schema["properties"]
    for name in ("before", "after"):
        for value, ok in ((read[name]["maximum"], True), (read[name]["maximum"] + 1, False)):
            output = json.loads(
                recall.read_chat(
                    CallContext(1), {"chat_id": chat_id, "around_message_id": 1, name: value}
                )
            )
            assert ("error" not in output) is ok
    assert [d.name for d in recall.tools(AgentMode.AGENT)] == [
        "search_chats",
        "read_chat",
        "list_chats",
    ]
