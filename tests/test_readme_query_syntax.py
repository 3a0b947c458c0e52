"""The README's "Query syntax" section works as written: each example, run against
the demo's sample history, finds what its comment says."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.main import main
from chat_recall.adapters.cli.sample_history import SAMPLE_APPS

README = Path(__file__).resolve().parents[1] / "README.md"


def examples() -> list[list[str]]:
    """The `chat-recall search` lines of the section's code block, as argument lists."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Query syntax") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None
    lines = [line.split("  #")[0] for line in block.group(1).splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("chat-recall search")]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("readme") / "history.db"
    recall = bootstrap.sqlite(path, create_host_schema=True)
    for app_id, chats in SAMPLE_APPS.items():
        for title, messages in chats:
            chat_id = recall.host.create_chat(app_id, title, 1_700_000_000)
            for offset, message in enumerate(messages):
                recall.host.add_message(
                    chat_id,
                    message.role,
                    message.content,
                    1_700_000_100 + offset,
                    is_compaction_summary=message.is_compaction_summary,
                )
    recall.indexer.run_until_idle()
    recall.close()
    return path


def run(history: Path, arguments: list[str], capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    arguments = [str(history) if word == "history.db" else word for word in arguments]
    assert main([*arguments, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def excerpts(output: dict) -> list[str]:  # type: ignore[type-arg]
    return [m["excerpt"] for r in output["results"] for m in r["matches"]]


def test_the_section_has_an_example_of_each_form() -> None:
    queries = [arguments[-1] for arguments in examples()]
    assert queries == [
        "Stripe Paddle invoices",
        '"customer portal"',
        "sess*",
        "sessions -JWT",
        "revokation",
    ]


def test_each_example_finds_what_it_says(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    words, phrase, prefix, excluded, misspelt = (run(history, a, capsys) for a in examples())
    assert words["results"]
    assert words["results"][0]["matched_terms"] == ["Stripe", "Paddle", "invoices"]
    assert excerpts(phrase)
    assert all("customer portal" in excerpt for excerpt in excerpts(phrase))
    assert any("Sessions" in excerpt for excerpt in excerpts(prefix))
    assert excerpts(excluded)
    assert not any("JWT" in excerpt for excerpt in excerpts(excluded))
    assert misspelt["did_you_mean"] == {"revokation": ["revocation"]}
    assert "Did you mean revocation?" in misspelt["query_note"]
