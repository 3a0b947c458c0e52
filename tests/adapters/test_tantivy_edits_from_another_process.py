"""A long-lived indexing process and another one (a `chat-recall index` or `rebuild`)
take turns: the other publishes an edit, the host edits the message back, and the first
indexes it. Its tantivy reader sees another process's commit only after tantivy's
polling delay, so the stored text it compares with must be read after a reload, or the
edit back is taken for unchanged and the other process's text stays (these failed so
before `_published_texts` reloaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_recall.adapters.tantivy.engine import TantivyIndexes
from chat_recall.contracts.fixtures import APP, USER, seed_chat
from chat_recall.domain.model import MessageId
from tests.adapters.test_tantivy_unchanged_documents import (
    drain,
    found,
    on_disk,
    open_tantivy,
    other_process_indexes,
    sql,
    store,
)


def fresh_process_finds(path: Path, root: Path, word: str) -> list[MessageId]:
    """What a search in a process started now finds (its own tantivy handles)."""
    with TantivyIndexes._registry_lock:
        ours = TantivyIndexes._open.pop(root)
    try:
        fresh = open_tantivy(path)
        try:
            return found(fresh, word)
        finally:
            fresh.close()
    finally:
        with TantivyIndexes._registry_lock:
            TantivyIndexes._open[root] = ours


def test_an_edit_back_after_another_process_published_the_edit(tmp_path: Path) -> None:
    """A long-lived indexing process (a host's, an MCP server's) published `quince`;
    `chat-recall index` in another process published the edit to `medlar`; the host
    edits back to `quince` and the first process indexes it. Its reader may not have
    reloaded the other process's commit yet (tantivy reloads a reader on a commit of
    another process after a polling delay): it must not leave `medlar` in tantivy."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    root = store(recall).indexes.root
    _, (message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)  # published, and the writers closed by a publish with nothing to do
    texts = {message: "quince"}
    for trial in range(5):
        recall.indexer.release_claim()
        assert found(recall, "quince") == [message]
        sql(path, "UPDATE messages SET content = 'medlar' WHERE id = ?", message)
        other_process_indexes(path, root)
        sql(path, "UPDATE messages SET content = 'quince' WHERE id = ?", message)
        drain(recall)
        assert fresh_process_finds(path, root, "quince") == [message], trial
        assert fresh_process_finds(path, root, "medlar") == [], trial
        assert on_disk(root, APP, [message]) == texts, trial
    recall.close()


@pytest.mark.parametrize("command", ["index", "rebuild"])
def test_an_edit_back_after_a_chat_recall_command_published_the_edit(
    tmp_path: Path, command: str
) -> None:
    """As above with a real `chat-recall index` / `rebuild` process; the host edits
    back at once when it ends (say an undo) and the long-lived process indexes it."""
    import subprocess
    import sys

    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    root = store(recall).indexes.root
    _, (message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    wrong = []
    for trial in range(4):
        recall.indexer.release_claim()
        assert found(recall, "quince") == [message]
        sql(path, "UPDATE messages SET content = 'medlar' WHERE id = ?", message)
        subprocess.run(
            [sys.executable, "-m", "chat_recall", command, "--db", str(path), "--quiet"],
            check=True,
            capture_output=True,
        )
        sql(path, "UPDATE messages SET content = 'quince' WHERE id = ?", message)
        drain(recall)
        if on_disk(root, APP, [message]) != {message: "quince"}:
            wrong.append((trial, on_disk(root, APP, [message])))
            sql(path, "UPDATE messages SET content = 'sorrel' WHERE id = ?", message)
            drain(recall)  # (rewritten: the next trial starts right)
            sql(path, "UPDATE messages SET content = 'quince' WHERE id = ?", message)
            drain(recall)
    assert wrong == []
    recall.close()
