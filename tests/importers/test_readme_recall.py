"""The README's "Recall your ChatGPT history", run as written: its two commands, on the
fixture export zipped as ChatGPT mails it; the second is driven by an MCP client."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.importers.test_importers import FIXTURES, export_zip

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[list[str]]:
    """The commands of the section's code block, as argument lists."""
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("## Recall your ChatGPT history", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None
    return [shlex.split(line) for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_recalls_a_chatgpt_export_in_two_commands(tmp_path: Path) -> None:
    importing, serving = readme_commands()
    assert importing[:2] == ["chat-recall", "import"]
    assert serving[:2] == ["chat-recall", "mcp"]
    export_zip(FIXTURES / "chatgpt", tmp_path / importing[-1])
    done = subprocess.run(
        [sys.executable, "-m", "chat_recall", *importing[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"app {serving[serving.index('--app') + 1]} (a new app)" in done.stdout

    async def scenario() -> None:
        parameters = StdioServerParameters(
            command=sys.executable, args=["-m", "chat_recall", *serving[1:]], cwd=str(tmp_path)
        )
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            found = await client.call_tool("search_chats", {"query": "ledger pgbouncer"})
            results = json.loads(found.content[0].text)["results"]
            assert results[0]["title"] == "Ledger database choice"
            listed = await client.call_tool("list_chats", {"after": "2024-05-03"})
            titles = [chat["title"] for chat in json.loads(listed.content[0].text)["chats"]]
            assert titles[0] == "Queue incident"
            assert titles[1].startswith("東京の会議は火曜日")  # untitled: its first message
            assert len(titles) == 2

    async def bounded() -> None:
        with anyio.fail_after(90):
            await scenario()

    anyio.run(bounded)
