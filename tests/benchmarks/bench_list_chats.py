"""list_chats on SQLite at the size of a long-lived app: one app of `--chats` chats of
`--messages` messages each (plus a second app of the same size), the tool's page (newest
first, oldest first, a one-week window) against a raw floor in the same run: one SQL
aggregate of every chat's newest time in the app, which any listing by time must at
least read. Prints a table and writes `bench-results/list-chats.json`.

    python -m tests.benchmarks.bench_list_chats --chats 2000 --messages 50
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL
from chat_recall.application.tools.context import CallContext

START = 1_700_000_000
REPEATS = 15


def build(path: Path, chats: int, messages: int) -> None:
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    rows = []
    chat_id = 0
    for app_id in (1, 2):
        for index in range(chats):
            chat_id += 1
            at = START + index * 3_600
            connection.execute(
                "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, ?, ?, ?)",
                (chat_id, app_id, f"chat {index}", at),
            )
            rows += [
                (chat_id, "user" if n % 2 == 0 else "assistant", f"message {n} of {index}", at + n)
                for n in range(messages)
            ]
    connection.executemany(
        "INSERT INTO messages(chat_id, role, content, created_at) VALUES (?, ?, ?, ?)", rows
    )
    connection.commit()
    connection.close()


def timed(call: Callable[[], object]) -> dict[str, float]:
    call()  # warm
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return {"median_ms": statistics.median(samples), "max_ms": max(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=50)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "list.db"
        build(path, arguments.chats, arguments.messages)
        week = START + (arguments.chats // 2) * 3_600
        after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(week))
        before = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(week + 7 * 86_400))
        with bootstrap.sqlite(path) as recall:
            context = CallContext(1)
            floor_connection = sqlite3.connect(path)

            def floor() -> object:
                return floor_connection.execute(
                    "SELECT m.chat_id, max(m.created_at) FROM messages AS m "
                    "JOIN chats AS c ON c.id = m.chat_id WHERE c.app_id = 1 GROUP BY m.chat_id"
                ).fetchall()

            results = {
                "raw floor (newest time per chat)": timed(floor),
                "list_chats newest, 20": timed(lambda: recall.list_chats(context, {"limit": 20})),
                "list_chats oldest, 20": timed(
                    lambda: recall.list_chats(context, {"order": "oldest", "limit": 20})
                ),
                "list_chats one week, 20": timed(
                    lambda: recall.list_chats(
                        context, {"after": after, "before": before, "limit": 20}
                    )
                ),
            }
            floor_connection.close()
    floor_ms = results["raw floor (newest time per chat)"]["median_ms"]
    print(f"{arguments.chats:,} chats of {arguments.messages} messages in the app (two apps)")
    for name, figures in results.items():
        ratio = figures["median_ms"] / floor_ms if floor_ms else float("nan")
        print(
            f"{name:36} median {figures['median_ms']:7.1f} ms  max {figures['max_ms']:7.1f} ms"
            f"  {ratio:5.1f}x the floor"
        )
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "list-chats.json").write_text(
        json.dumps({"chats": arguments.chats, "messages": arguments.messages, **results}, indent=2)
    )


if __name__ == "__main__":
    main()
