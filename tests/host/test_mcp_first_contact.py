"""What an agent meets first through `chat-recall mcp` (issue 37): a server started for
an app with no indexed chats says so, and code comes back as it was written."""

from __future__ import annotations

import json
from pathlib import Path

from chat_recall.adapters import bootstrap
from chat_recall.domain.messages import Role
from tests.host.test_mcp_server import run, session

CODE = "def handler(event):\n    if event.ok:\n        return 1\n    return 0"


def make_database(path: Path) -> int:
    recall = bootstrap.sqlite(path, create_host_schema=True)
    chat_id = recall.host.create_chat(1, "Handlers", 1_700_000_000)
    recall.host.add_message(chat_id, Role.USER, "the handler?", 1_700_000_060)
    recall.host.add_message(chat_id, Role.ASSISTANT, f"```python\n{CODE}\n```", 1_700_000_120)
    recall.indexer.run_until_idle()
    recall.close()
    return chat_id


def test_a_server_for_an_app_with_no_indexed_chats_says_so(tmp_path: Path) -> None:
    path = tmp_path / "mcp.db"
    make_database(path)
    errors = tmp_path / "stderr.txt"
    said = "App 7, the app this server is scoped to (--app), has no indexed chats"

    async def scenario() -> None:
        with errors.open("w") as errlog:
            async with session("--db", str(path), "--app", "7", errlog=errlog) as client:
                initialized = await client.initialize()
                assert said in (initialized.instructions or "")
                answer = await client.call_tool("search_chats", {"query": "handler"})
                output = json.loads(answer.content[0].text)
                assert output["results"] == []
                assert output["query_note"].startswith("App 7, the app this search is scoped")

    run(scenario)
    assert said in errors.read_text()


def test_a_server_for_an_app_with_chats_reads_code_as_written(tmp_path: Path) -> None:
    path = tmp_path / "mcp.db"
    chat_id = make_database(path)
    errors = tmp_path / "stderr.txt"

    async def scenario() -> None:
        with errors.open("w") as errlog:
            async with session("--db", str(path), "--app", "1", errlog=errlog) as client:
                initialized = await client.initialize()
                assert "no indexed chats" not in (initialized.instructions or "")
                found = await client.call_tool("search_chats", {"query": "handler*"})
                excerpts = [
                    m["excerpt"]
                    for r in found.structured_content["results"]  # type: ignore[index]
                    for m in r["matches"]
                ]
                assert f"```python\n{CODE}\n```" in excerpts
                read = await client.call_tool("read_chat", {"chat_id": chat_id})
                texts = [m["text"] for m in read.structured_content["messages"]]  # type: ignore[index]
                assert f"```python\n{CODE}\n```" in texts

    run(scenario)
    assert "no indexed chats" not in errors.read_text()
