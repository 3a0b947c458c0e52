"""Two indexer processes on one PostgreSQL database at the same time: the advisory lock
and the marker claims let each batch be applied once, by one of them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import psycopg

from chat_recall.adapters import bootstrap

MESSAGES = 3_000


def _cli(*arguments: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "chat_recall", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_indexer_processes_apply_each_batch_once(postgres_dsn: str, tmp_path: Path) -> None:
    lines = [{"type": "chat", "id": c, "app_id": 1 + c % 3, "created_at": 1} for c in range(1, 31)]
    lines += [
        {
            "type": "message",
            "id": m,
            "chat_id": 1 + m % 30,
            "role": "user" if m % 2 else "assistant",
            "content": f"message {m} about topic{m % 97}",
            "created_at": 10 + m,
        }
        for m in range(1, MESSAGES + 1)
    ]
    history = tmp_path / "history.jsonl"
    history.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    imported = _cli("import", "--db", postgres_dsn, str(history), "--quiet")
    assert imported.wait(timeout=120) == 0, imported.stderr.read() if imported.stderr else ""
    with bootstrap.postgres(postgres_dsn, install=False) as recall:
        recall.dirty.mark_all_messages()  # the import indexed them: all of it again, twice over
    both = [_cli("index", "--db", postgres_dsn, "--quiet") for _ in range(2)]
    outputs = [process.communicate(timeout=300) for process in both]
    for process, (_, err) in zip(both, outputs, strict=True):
        assert process.returncode == 0, err
    counts = [
        int(match.group(1).replace(",", ""))
        if (match := re.match(r"indexed ([\d,]+) messages", out))
        else 0
        for out, _ in outputs
    ]
    with psycopg.connect(postgres_dsn) as connection:
        documents, distinct = connection.execute(
            "SELECT count(*), count(DISTINCT message_id) FROM chat_recall_docs"
        ).fetchone() or (0, 0)
        pending = connection.execute("SELECT count(*) FROM chat_recall_dirty_messages").fetchone()
    assert documents == distinct == MESSAGES
    assert pending == (0,)
    assert sum(counts) == MESSAGES  # every message indexed by exactly one of them
