"""Code comes back as it was written: lines, indentation and tabs, through both tools,
their excerpts and their cards (issue 37: read_chat returned Python flush left)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from chat_recall.adapters.cli.main import main
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from tests.tools.conftest import ASSISTANT, USER, chat, result

# Each sample holds one word found nowhere else, to search for it.
SAMPLES = {
    "python": (
        "handlerword",
        "def handlerword(event):\n    if event.ok:\n        return 1\n\n    return 0",
    ),
    "yaml": (
        "composeword",
        "services:\n  composeword:\n    image: app:latest\n    ports:\n      - 8080:80",
    ),
    "makefile": ("recipeword", "recipeword: deps\n\tnpm ci\n\tnpm run build\n\ntest:\n\tnpm test"),
    "markdown": (
        "stepsword",
        "stepsword:\n\n1. Install\n   - run `npm ci`\n   - then `npm test`\n2. Deploy",
    ),
}


def written(code: str) -> str:
    """As a message holds it: fenced, with trailing spaces and extra blank lines."""
    lines = "\n".join(line + ("  " if line else "") for line in code.split("\n"))
    return f"Here it is:\n\n\n\n```\n{lines}\n```\n"


def expected(code: str) -> str:
    return f"Here it is:\n\n```\n{code}\n```"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_code_keeps_its_indentation_in_reads_excerpts_and_cards(
    recall: ChatRecall, name: str
) -> None:
    word, code = SAMPLES[name]
    chat_id, (_, answer) = chat(recall, 1, "Code", [(USER, "show me"), (ASSISTANT, written(code))])
    recall.indexer.run_until_idle()
    context = CallContext(1)

    search = recall.call_tool("search_chats", context, {"query": word})
    (hit,) = result(search.output)["results"]
    (match,) = [m for m in hit["matches"] if m["message_id"] == answer]
    assert match["excerpt"] == expected(code)
    card = etree.fromstring(search.card)
    assert [m.text for m in card.iter("match") if m.get("message-id") == str(answer)] == [
        expected(code)
    ]

    read = recall.call_tool("read_chat", context, {"chat_id": chat_id})
    messages = {m["message_id"]: m["text"] for m in result(read.output)["messages"]}
    assert messages[answer] == expected(code)
    card = etree.fromstring(read.card)
    assert [m.text for m in card.iter("message") if m.get("message-id") == str(answer)] == [
        expected(code)
    ]


def test_a_user_messages_code_keeps_its_indentation(recall: ChatRecall) -> None:
    word, code = SAMPLES["python"]
    chat_id, _ = chat(recall, 1, "Code", [(USER, written(code))])
    recall.indexer.run_until_idle()
    found = result(recall.search_chats(CallContext(1), {"query": word}))
    assert found["results"][0]["matches"][0]["excerpt"] == expected(code)
    read = result(recall.read_chat(CallContext(1), {"chat_id": chat_id}))
    assert read["messages"][0]["text"] == expected(code)


def test_a_long_excerpt_starts_at_a_line_and_keeps_the_indentation(recall: ChatRecall) -> None:
    prose = " ".join(f"filler{n}" for n in range(60))
    body = f"{prose}\n\n```python\ndef f():\n    if ready:\n        return launchword\n```"
    chat(recall, 1, "Code", [(ASSISTANT, body)])
    recall.indexer.run_until_idle()
    found = result(recall.search_chats(CallContext(1), {"query": "launchword"}))
    excerpt = found["results"][0]["matches"][0]["excerpt"]
    assert excerpt.endswith("def f():\n    if ready:\n        return launchword\n```")
    assert excerpt.startswith("…")


def test_the_cli_prints_code_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chat_recall.adapters import bootstrap

    path = tmp_path / "code.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    word, code = SAMPLES["makefile"]
    chat_id, _ = chat(recall, 1, "Build", [(ASSISTANT, written(code))])
    recall.indexer.run_until_idle()
    recall.close()
    database = ["--db", str(path), "--app", "1", "--format", "text"]
    assert main(["search", *database, word]) == 0
    assert "\n    recipeword: deps\n    \tnpm ci\n    \tnpm run build\n" in capsys.readouterr().out
    assert main(["read", *database, "--chat", str(chat_id)]) == 0
    assert f"\n{expected(code)}\n" in capsys.readouterr().out
