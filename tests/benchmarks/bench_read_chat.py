"""read_chat around-read latency in chats of 1k, 10k and 100k messages (SQLite).

The around-read finds its neighbours by keyset on (chat_id, created_at, id), so its cost
should stay flat as a chat grows. Run: python tests/benchmarks/bench_read_chat.py
Prints median and p95 per chat size; asserts nothing.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from chat_recall.adapters import bootstrap
from chat_recall.application.tools.context import CallContext

SIZES = (1_000, 10_000, 100_000)
READS = 300


def build(path: Path) -> dict[int, list[int]]:
    recall = bootstrap.sqlite(path, create_host_schema=True)
    recall.close()
    connection = sqlite3.connect(path)
    chats: dict[int, list[int]] = {}
    next_id = 1
    for chat_id, size in enumerate(SIZES, start=1):
        connection.execute(
            "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, 1, ?, 0)",
            (chat_id, f"chat of {size}"),
        )
        rows = [
            (
                next_id + i,
                chat_id,
                "user" if i % 2 else "assistant",
                f"message {i} about the session store and billing " * 4,
                1_700_000_000 + i,
            )
            for i in range(size)
        ]
        connection.executemany(
            "INSERT INTO messages(id, chat_id, role, content, created_at, ai_messages_json) "
            "VALUES (?, ?, ?, ?, ?, 'x')",
            rows,
        )
        chats[chat_id] = [row[0] for row in rows]
        next_id += size
    connection.execute("DELETE FROM chat_recall_dirty_messages")
    connection.commit()
    connection.close()
    return chats


def main() -> None:
    directory = Path(tempfile.mkdtemp())
    chats = build(directory / "read.db")
    recall = bootstrap.sqlite(directory / "read.db")
    generator = random.Random(3)
    print(f"{'messages in chat':>16} {'around median ms':>17} {'p95 ms':>7} {'page median ms':>15}")
    for chat_id, size in enumerate(SIZES, start=1):
        ids = chats[chat_id]
        around, page = [], []
        for _ in range(READS):
            target = generator.choice(ids)
            started = time.perf_counter()
            recall.read_chat(CallContext(1), {"chat_id": chat_id, "around_message_id": target})
            around.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            recall.read_chat(
                CallContext(1),
                {"chat_id": chat_id, "offset": generator.randrange(size), "limit": 10},
            )
            page.append((time.perf_counter() - started) * 1000)
        around.sort()
        print(
            f"{size:>16} {statistics.median(around):>17.2f} "
            f"{around[int(len(around) * 0.95)]:>7.2f} {statistics.median(page):>15.2f}"
        )
    recall.close()


if __name__ == "__main__":
    main()
