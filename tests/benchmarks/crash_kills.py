"""Crash safety: `chat-recall index`, `import` and `rebuild` are killed (SIGKILL) at
random points, over and over, while the host keeps writing between the runs. After each
kill the restart (`index`; `install` + `index` after a killed rebuild) must bring the
index to exactly what a rebuild gives (every document equals the projection of its
source row, nothing else indexed), with no marker lost (the backlog drains to empty)
and FTS5's own integrity check passing.

A kill point is a random moment within the time the command takes uninterrupted
(measured first), so kills land at start-up, inside transactions and between them;
only kills that found the process still running are counted.

Run: python -m tests.benchmarks.crash_kills [--kills 30] (per command; prints counts).
`tests/test_crash_safety.py` runs at least 50 kills in total in CI.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.main import main as cli
from chat_recall.adapters.sqlite_host.migrations import APPS
from chat_recall.domain.indexing import build_document
from chat_recall.domain.model import AppId

WORDS = (
    "session token login form cache deploy schema table button layout billing invoice "
    "theme route server client query error fix build state modal view list"
).split()


@attrs.frozen
class KillReport:
    command: str
    kills: int  # kills that found the command still running
    finished_first: int  # runs that ended before their kill point
    problems: tuple[str, ...]


class History:
    """The host's side: JSON Lines to import and direct writes between runs."""

    def __init__(self, path: Path, seed: int) -> None:
        self.path = path
        self.random = random.Random(seed)
        self.next_chat = 1
        self.next_message = 1

    def text(self) -> str:
        body = " ".join(self.random.choices(WORDS, k=self.random.randint(5, 60)))
        if self.random.random() < 0.2:
            body += f'\n<dyad-write path="src/a.ts">{"x = 1;" * 200}</dyad-write>'
        return body

    def lines(self, chats: int, per_chat: int) -> list[str]:
        out = []
        for _ in range(chats):
            chat_id = self.next_chat
            self.next_chat += 1
            out.append(
                json.dumps(
                    {
                        "type": "chat",
                        "id": chat_id,
                        "app_id": self.random.randint(1, 3),
                        "title": " ".join(self.random.choices(WORDS, k=3)),
                        "created_at": 1_700_000_000,
                    }
                )
            )
            for index in range(per_chat):
                out.append(
                    json.dumps(
                        {
                            "type": "message",
                            "id": self.next_message,
                            "chat_id": chat_id,
                            "role": "user" if index % 2 else "assistant",
                            "content": self.text(),
                            "created_at": 1_700_000_000 + index,
                        }
                    )
                )
                self.next_message += 1
        return out

    def write_between_runs(self) -> None:
        """Host writes while no chat-recall process runs: edits, deletes, a rename of
        the largest chat (re-indexes all its messages), a chat deleted."""
        connection = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("BEGIN IMMEDIATE")  # one commit: the disk's syncs are slow here
        ids = [row[0] for row in connection.execute("SELECT id FROM messages")]
        for message_id in self.random.sample(ids, min(40, len(ids))):
            connection.execute(
                "UPDATE messages SET content = ? WHERE id = ?", (self.text(), message_id)
            )
        for message_id in self.random.sample(ids, min(15, len(ids))):
            connection.execute("DELETE FROM messages WHERE id = ?", (message_id,))
        largest = connection.execute(
            "SELECT chat_id FROM messages GROUP BY chat_id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()
        if largest:
            connection.execute(
                "UPDATE chats SET title = ? WHERE id = ?",
                (" ".join(self.random.choices(WORDS, k=4)), largest[0]),
            )
        chats = [row[0] for row in connection.execute("SELECT id FROM chats")]
        if len(chats) > 3:
            connection.execute("DELETE FROM chats WHERE id = ?", (self.random.choice(chats),))
        connection.execute("COMMIT")
        connection.close()


def command_line(command: str, path: Path, extra: Sequence[str] = ()) -> list[str]:
    return [command, "--db", str(path), *extra, "--quiet"]


def _child(arguments: list[str]) -> None:
    """The command in a forked process (no interpreter start-up to wait through), its
    output discarded."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os._exit(cli(arguments))


def run_and_kill(arguments: list[str], after: float) -> float | None:
    """Run the command in a child process and SIGKILL it `after` seconds later. None
    if it was still running then (killed), else how long it took."""
    started = time.perf_counter()
    process = multiprocessing.get_context("fork").Process(target=_child, args=(arguments,))
    process.start()
    process.join(after)
    if process.exitcode is not None:
        assert process.exitcode == 0, f"{arguments} failed before its kill point"
        return time.perf_counter() - started
    assert process.pid is not None
    os.kill(process.pid, signal.SIGKILL)
    process.join()
    return None


def finish(arguments: list[str]) -> float:
    took = run_and_kill(arguments, 600)
    assert took is not None, f"{arguments} still running after 600 s"
    return took


def check(path: Path) -> list[str]:
    """After the restart: the index is what a rebuild gives, nothing is pending, and
    FTS5's integrity check passes."""
    problems: list[str] = []
    with bootstrap.sqlite(path, install=False) as recall:
        recall.indexer.run_until_idle()
        backlog = recall.dirty.backlog()
        if not backlog.is_empty:
            problems.append(f"backlog left after draining: {backlog}")
        connection = sqlite3.connect(path)
        ids = [row[0] for row in connection.execute("SELECT id FROM messages ORDER BY id")]
        apps = [row[0] for row in connection.execute(f"SELECT app_id FROM {APPS}")]
        rows = recall.repo.source_rows(ids)
        for app_id in {*apps, *(row.app_id for row in rows)}:
            expected = {
                row.message.id: (document.title, document.body)
                for row in rows
                if row.app_id == app_id
                and (document := build_document(row, recall.policy)) is not None
            }
            indexed = {
                d.message_id: (d.title, d.body) for d in recall.index.documents(AppId(app_id), ids)
            }
            if indexed != expected:
                missing = len(set(expected) - set(indexed))
                extra = len(set(indexed) - set(expected))
                problems.append(f"app {app_id}: {missing} documents missing, {extra} extra")
            stats = recall.index.stats(AppId(app_id))
            if stats.unreclaimed:
                problems.append(f"app {app_id}: {stats.unreclaimed} deleted not reclaimed")
        for (table,) in connection.execute(f"SELECT fts_table FROM {APPS}").fetchall():
            try:
                connection.execute(f'INSERT INTO "{table}"("{table}") VALUES (\'integrity-check\')')
            except sqlite3.Error as error:
                problems.append(f"{table}: {error}")
        (verdict,) = connection.execute("PRAGMA integrity_check").fetchone()
        if verdict != "ok":
            problems.append(f"integrity_check: {verdict}")
        connection.close()
    return problems


def kill_cycles(directory: Path, command: str, kills: int, seed: int) -> KillReport:
    """`kills` runs of `command` each killed at a random point, the restart and the
    check after each."""
    pick = random.Random(seed)
    path = directory / f"{command}.db"
    history = History(path, seed)
    source = directory / f"{command}.jsonl"
    source.write_text("\n".join(history.lines(12, 100)) + "\n")
    assert cli(["import", "--db", str(path), str(source), "--quiet"]) == 0
    assert cli(["index", "--db", str(path), "--quiet"]) == 0
    batch = directory / f"{command}-more.jsonl"

    def prepared() -> list[str]:
        history.write_between_runs()
        if command == "import":
            batch.write_text("\n".join(history.lines(4, 150)) + "\n")
            return ["import", "--db", str(path), str(batch), "--on-conflict", "replace", "-q"]
        if command == "index":
            with bootstrap.sqlite(path) as recall:  # plenty to do: everything re-marked
                recall.dirty.mark_all_messages()
        return command_line(command, path)

    # Kill points are drawn within the shortest uninterrupted run seen so far: a first
    # run slower than the rest (cold caches, a busy machine) must not leave most later
    # runs finishing before their kill point.
    uninterrupted = finish(prepared())
    problems = check(path)
    killed = finished = 0
    while killed < kills:
        assert finished <= 4 * kills, f"{command}: {finished} runs ended before any kill"
        arguments = prepared()
        took = run_and_kill(arguments, pick.uniform(0.01, max(uninterrupted, 0.02)))
        if took is None:
            killed += 1
        else:
            finished += 1
            uninterrupted = min(uninterrupted, took)
        # the restart
        if command == "rebuild":
            finish(["install", "--db", str(path)])
        finish(["index", "--db", str(path), "--quiet"])
        problems += [f"{command} kill {killed}: {problem}" for problem in check(path)]
    return KillReport(command, killed, finished, tuple(problems))


def run(kills: dict[str, int], seed: int = 1) -> list[KillReport]:
    with tempfile.TemporaryDirectory() as directory:
        return [
            kill_cycles(Path(directory), command, count, seed + index)
            for index, (command, count) in enumerate(kills.items())
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=30, help="per command")
    arguments = parser.parse_args(argv)
    reports = run({command: arguments.kills for command in ("index", "import", "rebuild")})
    for report in reports:
        print(
            f"{report.command}: {report.kills} kills mid-run ({report.finished_first} runs "
            f"ended before their kill point); {len(report.problems)} problems after restart"
        )
        for problem in report.problems[:10]:
            print("   ", problem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
