"""The CLI's semantic choice: recorded by init/install, used by index, status and
search; a remote one only after the user agrees to its disclosure."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from chat_recall.adapters.cli.main import main
from tests.semantic.test_embedders import StubService


def seeded(path: Path) -> None:
    connection = sqlite3.connect(path)
    for n, (title, text) in enumerate(
        [
            ("Weekend cooking", "Tonight we make spaghetti carbonara with pancetta."),
            ("Auth", "Passwords are gone: users sign in with passkeys."),
        ]
    ):
        connection.execute(
            "INSERT INTO chats(app_id, title, created_at) VALUES (1, ?, ?)", (title, 1000 + n)
        )
        connection.execute(
            "INSERT INTO messages(chat_id, role, content, created_at) "
            "VALUES (last_insert_rowid(), 'user', ?, ?)",
            (text, 1001 + n),
        )
    connection.commit()
    connection.close()


def status(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    main(["status", "--db", str(path), "--format", "json"])
    semantic: dict[str, object] = json.loads(capsys.readouterr().out)["semantic"]
    return semantic


def test_init_local_then_index_embeds_and_search_finds_by_meaning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "app.db"
    assert main(["init", "--db", str(path), "--semantic", "local"]) == 0
    assert "semantic search: wordllama-l2-supercat-256" in capsys.readouterr().out
    seeded(path)
    assert main(["index", "--db", str(path), "-q"]) == 0
    assert "2 messages embedded for semantic search" in capsys.readouterr().out
    assert status(path, capsys) == {
        "model": "wordllama-l2-supercat-256",
        "embedded": 2,
        "backlog": 0,
        "coverage": 1.0,
        "sends_text_to": None,
    }
    main(["search", "--db", str(path), "--app", "1", "pasta dinner"])
    found = json.loads(capsys.readouterr().out)
    assert found["results"][0]["title"] == "Weekend cooking"
    assert found["results"][0]["matched_by"] == "meaning"
    assert main(["install", "--db", str(path), "--semantic", "off"]) == 0
    assert "its vectors dropped" in capsys.readouterr().out
    assert status(path, capsys)["embedded"] == 0
    main(["search", "--db", str(path), "--app", "1", "pasta dinner"])
    assert json.loads(capsys.readouterr().out)["results"] == []


def test_a_remote_service_needs_the_users_agreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "app.db"
    main(["init", "--db", str(path)])
    seeded(path)
    service = StubService()
    try:
        remote = [
            "install",
            "--db",
            str(path),
            "--semantic",
            "openai-compatible",
            "--embedding-url",
            service.base_url,
            "--embedding-model",
            "stub-embed",
        ]
        assert main(remote) != 0  # not a terminal, no --yes: refused
        said = capsys.readouterr()
        assert f"{service.base_url}/embeddings" in said.out
        assert "needs your agreement" in said.err
        assert service.requests == []
        assert main([*remote, "--yes"]) == 0
        main(["index", "--db", str(path), "-q"])
        embedded = [t for r in service.requests for t in r["body"]["input"]]
        assert any("spaghetti carbonara" in text for text in embedded)
        assert status(path, capsys)["sends_text_to"] == f"{service.base_url}/embeddings"
    finally:
        service.close()


def test_openai_compatible_needs_a_url_and_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "app.db"
    main(["init", "--db", str(path)])
    assert main(["install", "--db", str(path), "--semantic", "openai-compatible"]) != 0
    assert "needs --embedding-url and --embedding-model" in capsys.readouterr().err
