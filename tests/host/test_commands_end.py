"""`index`, `rebuild` and `import` end while the host keeps writing: once they have caught
up with what was pending when they started, and they say what they left to the app's
indexer. The host here is a thread writing on its own connection until the command has
returned (so the command cannot wait for the host to stop), pacing itself as an app
does; no assertion rests on timing.

And while `index` runs elsewhere, a search says so (`elsewhere`); `rebuild` keeps the
old documents answering until each is replaced."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.main import main
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.application.indexer import Indexer
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.messages import Role

PENDING = 300
# The host's own pace between two writes (an app streaming a reply writes several times a
# second); a wait on the stop event, never a measurement.
HOST_PAUSE_SECONDS = 0.002
# A host streaming replies at the 50 writes a second: slow enough that a loaded
# machine's command still outpaces it, so a test of work pending at the start is not
# decided by how busy the machine is.
STREAMING_PAUSE_SECONDS = 0.02


def history(path: Path, engine: Engine) -> list[int]:
    """Installed, with PENDING messages not indexed yet."""
    with bootstrap.sqlite(path, create_host_schema=True, engine=engine) as recall:
        chat_id = recall.host.create_chat(1, "Plans", 1)
        return [
            recall.host.add_message(chat_id, Role.USER, f"pending plan {n} zqold{n}x", n + 2)
            for n in range(PENDING)
        ]


@attrs.define
class Host:
    """Writes new messages, one a transaction, until `stop`."""

    path: Path
    pause: float = HOST_PAUSE_SECONDS
    written: int = 0
    started: threading.Event = attrs.field(factory=threading.Event)
    stop: threading.Event = attrs.field(factory=threading.Event)

    def run(self) -> None:
        connection = sqlite3.connect(self.path, isolation_level=None, timeout=5)
        connection.execute("PRAGMA busy_timeout = 5000")
        while not self.stop.is_set():
            connection.execute(
                "INSERT INTO messages(chat_id, role, content, created_at) "
                "VALUES (1, 'user', ?, 1000000)",
                (f"live message {self.written}",),
            )
            self.written += 1
            self.started.set()
            self.stop.wait(self.pause)
        connection.close()


@contextmanager
def host_writing(path: Path, pause: float = HOST_PAUSE_SECONDS) -> Iterator[Host]:
    host = Host(path, pause)
    thread = threading.Thread(target=host.run)
    thread.start()
    assert host.started.wait(30)
    try:
        yield host
    finally:
        host.stop.set()
        thread.join()


def indexed(path: Path, ids: list[int]) -> set[int]:
    with bootstrap.sqlite(path, install=False) as recall:
        return {d.message_id for d in recall.index.documents(1, ids)}  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", [Engine.SQLITE, Engine.TANTIVY])
def test_index_ends_once_caught_up_while_the_host_keeps_writing(
    tmp_path: Path, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.db"
    ids = history(path, engine)
    with host_writing(path) as host:
        code = main(["index", "--db", str(path), "--quiet", "--planning-processes", "0"])
        during = host.written
    assert code == 0
    assert during > 0  # the host wrote while the command ran
    assert indexed(path, ids) == set(ids)  # everything pending at its start
    assert capsys.readouterr().out.startswith("indexed ")


def test_index_with_nothing_pending_ends_at_once_while_the_host_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.db"
    history(path, Engine.SQLITE)
    assert main(["index", "--db", str(path), "--quiet"]) == 0
    capsys.readouterr()
    with host_writing(path):
        assert main(["index", "--db", str(path), "--quiet", "--planning-processes", "0"]) == 0
    out = capsys.readouterr().out
    assert "indexed" in out or "nothing to index" in out


def test_rebuild_ends_and_the_old_documents_answer_until_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "host.db"
    ids = history(path, Engine.SQLITE)
    assert main(["index", "--db", str(path), "--quiet"]) == 0
    capsys.readouterr()
    found_midway: list[bool] = []
    run_batch = Indexer.run_batch

    def searched_after_the_first_batch(self: Indexer) -> object:
        report = run_batch(self)
        if not found_midway:  # a reader, as the MCP server is, in the middle of it
            with bootstrap.sqlite(path, install=False) as reader:
                output = json.loads(reader.search_chats(CallContext(1), {"query": "zqold7x"}))
            found_midway.append(bool(output["results"]))
        return report

    monkeypatch.setattr(Indexer, "run_batch", searched_after_the_first_batch)
    with host_writing(path):
        code = main(["rebuild", "--db", str(path), "--quiet", "--planning-processes", "0"])
    assert code == 0
    assert found_midway == [True]  # the old document answered
    assert indexed(path, ids) == set(ids)
    assert "rebuilt in place" in capsys.readouterr().out


def test_import_indexes_what_it_imported_and_ends_while_the_host_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "host.db"
    history(path, Engine.SQLITE)
    lines = tmp_path / "more.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"type": "chat", "id": 50, "app_id": 1, "title": "Imported", "created_at": 1},
                *(
                    {
                        "type": "message",
                        "id": 10_000 + n,
                        "chat_id": 50,
                        "role": "user",
                        "content": f"imported words zqimp{n}x",
                        "created_at": 2,
                    }
                    for n in range(50)
                ),
            ]
        )
    )
    with host_writing(path):
        code = main(["import", "--db", str(path), "--quiet", str(lines)])
    assert code == 0
    out = capsys.readouterr().out
    assert "imported 1 chat and 50 messages" in out
    assert "indexed" in out
    assert {10_000 + n for n in range(50)} <= indexed(path, [10_000 + n for n in range(50)])


def test_a_search_says_elsewhere_while_another_process_holds_the_queue(tmp_path: Path) -> None:
    """A reader with no indexer of its own (the MCP server with `--read-only`, or none
    started) sees the claim `chat-recall index` holds."""
    path = tmp_path / "host.db"
    history(path, Engine.SQLITE)
    with bootstrap.sqlite(path) as indexing, bootstrap.sqlite(path, install=False) as reader:
        indexing.indexer.run_batch()  # takes the claim, indexes a part
        with sqlite3.connect(path) as host:
            host.execute("INSERT INTO messages(chat_id, role, content) VALUES (1, 'user', 'fresh')")
        output = json.loads(reader.search_chats(CallContext(1), {"query": "plan"}))
        assert output["index_coverage"]["indexer"] == "elsewhere"
        assert reader.status(1).indexer == "elsewhere"  # type: ignore[arg-type]
        indexing.indexer.release_claim()
        output = json.loads(reader.search_chats(CallContext(1), {"query": "plan"}))
        assert output["index_coverage"]["indexer"] == "stopped"


LARGE_CHAT = 2_000


@pytest.mark.parametrize("engine", [Engine.SQLITE, Engine.TANTIVY])
def test_index_after_a_large_chat_was_renamed_ends_with_the_whole_chat_indexed(
    tmp_path: Path, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    """A renamed chat re-indexes every message (the title is in each document): those
    are work pending at the command's start, not arrivals that bound it, so it ends with
    all of them written, while the host keeps writing."""
    path = tmp_path / "host.db"
    with bootstrap.sqlite(path, create_host_schema=True, engine=engine) as recall:
        chat_id = recall.host.create_chat(1, "Plans", 1)
        for n in range(LARGE_CHAT):
            recall.host.add_message(chat_id, Role.USER, f"message {n}", n + 2)
        recall.indexer.run_until_idle()
    with sqlite3.connect(path) as host:
        host.execute("UPDATE chats SET title = 'zqrenamedx' WHERE id = ?", (chat_id,))
    with host_writing(path, STREAMING_PAUSE_SECONDS) as host_thread:
        code = main(["index", "--db", str(path), "--quiet", "--planning-processes", "0"])
        during = host_thread.written
    assert code == 0
    assert during > 0
    out = capsys.readouterr().out
    assert "faster than this command" not in out  # it was not cut short at its bound
    with bootstrap.sqlite(path, install=False, engine=engine) as reader:
        output = json.loads(
            reader.search_chats(CallContext(1), {"query": "zqrenamedx", "limit": 1})
        )
        assert output["results"]
        # every message of the chat holds the new title now
        documents = reader.index.documents(1, list(range(1, LARGE_CHAT + 1)))  # type: ignore[arg-type]
        assert {d.title for d in documents} == {"zqrenamedx"}
        assert len(documents) == LARGE_CHAT


HOLDER = """
import sys
from pathlib import Path
from chat_recall.adapters import bootstrap

with bootstrap.sqlite(Path(sys.argv[1])) as recall:
    recall.indexer.run_batch()  # takes the claim to the queue, indexes a part
    print("claimed", flush=True)
    sys.stdin.readline()  # until the test has searched
    recall.indexer.release_claim()
print("released", flush=True)
"""


def test_a_search_says_elsewhere_while_an_indexer_in_another_process_holds_the_queue(
    tmp_path: Path,
) -> None:
    """`chat-recall index` (here: a process holding the claim) beside an MCP server
    without an indexer of its own: the server's searches say `elsewhere`, not `stopped`."""
    path = tmp_path / "host.db"
    history(path, Engine.SQLITE)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "claimed"
        with bootstrap.sqlite(path, install=False) as reader:
            output = json.loads(reader.search_chats(CallContext(1), {"query": "plan"}))
            assert output["index_status"] == "indexing"
            assert output["index_coverage"]["indexer"] == "elsewhere"
            holder.stdin.write("\n")
            holder.stdin.flush()
            assert holder.stdout.readline().strip() == "released"
            output = json.loads(reader.search_chats(CallContext(1), {"query": "plan"}))
            assert output["index_coverage"]["indexer"] == "stopped"
    finally:
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0
