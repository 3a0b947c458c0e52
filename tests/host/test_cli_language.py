"""`--language` through the CLI: chosen at `init` or `install`, recorded with the index,
used by every later command (search, status, rebuild, a bare install, the MCP
server's facade), and changed by naming another one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main
from chat_recall.domain.text.language import Language

Capture = pytest.CaptureFixture[str]

LINES = [
    {"type": "chat", "id": 1, "app_id": 1, "title": "Berlin", "created_at": 1_700_000_000},
    {
        "type": "message",
        "id": 1,
        "chat_id": 1,
        "role": "assistant",
        "content": "Die Rechnungen gehen am Monatsende als PDF an die Schule.",
        "created_at": 1_700_000_001,
    },
]


def _found(path: Path, query: str, capsys: Capture) -> list[int]:
    capsys.readouterr()
    assert main(["search", "--db", str(path), "--app", "1", "--format", "json", query]) == 0
    output = json.loads(capsys.readouterr().out)
    return [match["message_id"] for result in output["results"] for match in result["matches"]]


def _status(path: Path, capsys: Capture) -> dict[str, object]:
    capsys.readouterr()
    main(["status", "--db", str(path), "--format", "json"])
    status: dict[str, object] = json.loads(capsys.readouterr().out)
    return status


def test_the_language_is_chosen_once_and_kept_by_every_later_command(
    tmp_path: Path, capsys: Capture
) -> None:
    path = tmp_path / "history.db"
    lines = tmp_path / "history.jsonl"
    lines.write_text("\n".join(json.dumps(line) for line in LINES) + "\n", encoding="utf-8")
    assert main(["init", "--db", str(path), "--language", "german"]) == 0
    assert "language: german" in capsys.readouterr().out
    assert main(["import", "--db", str(path), str(lines)]) == 0
    assert main(["index", "--db", str(path)]) == 0
    assert _found(path, "Rechnung", capsys) == [1]
    assert _status(path, capsys)["language"] == "german"
    capsys.readouterr()
    main(["status", "--db", str(path), "--format", "text"])
    assert "Language: german" in capsys.readouterr().out

    assert main(["install", "--db", str(path)]) == 0  # no flag: the recorded language
    assert "language: german" in capsys.readouterr().out
    assert main(["rebuild", "--db", str(path), "--quiet"]) == 0
    assert _found(path, "Rechnung", capsys) == [1]
    with bootstrap.sqlite(path, install=False) as recall:  # as the MCP server opens it
        assert recall.index.analysis.language is Language.GERMAN

    assert main(["install", "--db", str(path), "--language", "english"]) == 0
    assert main(["index", "--db", str(path)]) == 0
    assert _found(path, "Rechnung", capsys) == []  # English stems do not join them
    assert _found(path, "Rechnungen", capsys) == [1]
    assert _status(path, capsys)["language"] == "english"


def test_an_unknown_language_is_a_usage_error_naming_the_choices(
    tmp_path: Path, capsys: Capture
) -> None:
    with pytest.raises(SystemExit) as usage:
        main(["init", "--db", str(tmp_path / "h.db"), "--language", "klingon"])
    assert usage.value.code == Exit.USAGE
    error = capsys.readouterr().err
    assert "klingon" in error
    assert "german" in error
    assert not (tmp_path / "h.db").exists()
