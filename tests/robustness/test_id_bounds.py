"""Ids outside the 64-bit range every engine shares are `invalid_arguments` in every
driver (facade, CLI, MCP), never an overflow traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from chat_recall.adapters.mcp_server import build_server
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.errors import InvalidArguments
from chat_recall.domain.model import ID_MAX, ID_MIN
from tests.tools.conftest import chat, result

OUTSIDE = [ID_MAX + 1, 2**64, ID_MIN - 1, -(2**70)]


def read_arguments(chat_id: int, value: int) -> list[dict[str, Any]]:
    return [
        {"chat_id": value},
        {"chat_id": chat_id, "around_message_id": value},
        {"chat_id": value, "around_message_id": value},
        {"chat_id": chat_id, "offset": value},
        {"chat_id": chat_id, "limit": value},
        {"chat_id": chat_id, "around_message_id": 1, "before": value},
    ]


@pytest.mark.parametrize("value", OUTSIDE)
def test_tool_arguments_outside_the_id_range_are_invalid_arguments(
    recall: ChatRecall, value: int
) -> None:
    chat_id, _ = chat(recall, 1, "C", ["hello"])
    context = CallContext(1)
    for arguments in read_arguments(chat_id, value):
        output = result(recall.read_chat(context, arguments))
        assert output["error"]["kind"] == "invalid_arguments", arguments
    output = result(recall.search_chats(context, {"query": "hello", "limit": value}))
    assert output["error"]["kind"] == "invalid_arguments"


def test_the_largest_storable_ids_are_simply_not_found(recall: ChatRecall) -> None:
    chat_id, _ = chat(recall, 1, "C", ["hello"])
    context = CallContext(ID_MAX, ID_MIN, ID_MAX)
    assert result(recall.read_chat(context, {"chat_id": ID_MAX}))["error"]["kind"] == "not_found"
    around = {"chat_id": chat_id, "around_message_id": ID_MAX}
    assert result(recall.read_chat(CallContext(1), around))["error"]["kind"] == "not_found"
    assert result(recall.search_chats(context, {"query": "hello"}))["results"] == []
    assert recall.status(ID_MIN, ID_MAX).pending == 0


@pytest.mark.parametrize("value", OUTSIDE)
def test_a_call_context_outside_the_range_is_refused(value: int) -> None:
    for fields in (
        {"app_id": value},
        {"app_id": 1, "chat_id": value},
        {"app_id": 1, "message_id": value},
    ):
        with pytest.raises(InvalidArguments, match="64-bit"):
            CallContext(**fields)


def test_the_cli_reports_invalid_arguments_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "ids.db")
    assert main(["init", "--db", path]) == 0
    capsys.readouterr()
    huge = str(2**63)
    # The tool's structured error, on standard error, with the tool-error exit code.
    assert main(["read", "--db", path, "--app", "1", "--chat", huge]) == Exit.TOOL_ERROR
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "invalid_arguments"
    # A bound the schema declares is checked by the command line itself (a usage error).
    with pytest.raises(SystemExit) as usage:
        main(["read", "--db", path, "--app", "1", "--chat", "1", "--around", huge])
    assert usage.value.code == Exit.USAGE
    assert "argument --around: must be an integer from 1-" in capsys.readouterr().err
    for command in (
        ["search", "--db", path, "--app", huge, "x"],
        ["search", "--db", path, "--app", "1", "--current-chat", str(2**64), "x"],
        ["read", "--db", path, "--app", huge, "--chat", "1"],
    ):
        assert main(command) == 1
        assert "64-bit" in capsys.readouterr().err


def test_mcp_answers_out_of_range_ids_with_invalid_arguments(recall: ChatRecall) -> None:
    chat_id, _ = chat(recall, 1, "C", ["hello"])
    server = build_server(recall, CallContext(1))

    async def scenario() -> None:
        async with Client(server) as client:
            for arguments in read_arguments(chat_id, 2**63):
                answer = await client.call_tool("read_chat", arguments)
                assert answer.is_error
                assert json.loads(answer.content[0].text)["error"]["kind"] == "invalid_arguments"

    anyio.run(scenario)


def test_an_unexpected_failure_inside_a_tool_is_a_structured_error(
    recall: ChatRecall, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    chat_id, _ = chat(recall, 1, "C", ["hello"])

    def broken(*_: object) -> None:
        raise RuntimeError("a bug with secret text")

    monkeypatch.setattr(type(recall.repo), "chat", broken)
    output = recall.read_chat(CallContext(1), {"chat_id": chat_id})
    assert result(output)["error"] == {
        "kind": "internal",
        "message": "read_chat failed unexpectedly (RuntimeError); the host's log has details",
    }
    assert "a bug with secret text" in caplog.text  # the traceback goes to the host's log
