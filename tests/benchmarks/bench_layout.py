"""Why one FTS5 table per app: the scoping cost of the two physical layouts.

Builds the same synthetic corpus (Zipf-like vocabulary, N messages in 10 apps, the
largest app holding ~30%) twice: (a) one table with `app_id UNINDEXED` filtered by
`app_id = ?`, as the design sketched it; (b) one table per app, as chat-recall ships.
Times top-200 bm25 queries for a common word, a mid-frequency word and a rare word.

Run: python tests/benchmarks/bench_layout.py [messages]   (default 200000)
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

APPS = 10
VOCABULARY = [f"w{i}" for i in range(20_000)]
WEIGHTS = [1.0 / (rank + 1) for rank in range(len(VOCABULARY))]


def corpus(count: int) -> list[tuple[int, int, str]]:
    generator = random.Random(7)
    app_weights = [3.0] + [7.0 / (APPS - 1)] * (APPS - 1)
    rows = []
    for message_id in range(1, count + 1):
        app_id = generator.choices(range(APPS), app_weights)[0]
        words = generator.choices(VOCABULARY, WEIGHTS, k=generator.randint(8, 60))
        rows.append((message_id, app_id, " ".join(words)))
    return rows


def time_query(connection: sqlite3.Connection, sql: str, parameters: tuple[object, ...]) -> float:
    timings = []
    for _ in range(7):
        started = time.perf_counter()
        connection.execute(sql, parameters).fetchall()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    rows = corpus(count)
    directory = Path(tempfile.mkdtemp())
    single = sqlite3.connect(directory / "single.db")
    single.execute(
        "CREATE VIRTUAL TABLE fts USING fts5(title, body, app_id UNINDEXED, "
        "tokenize = 'unicode61 remove_diacritics 2')"
    )
    single.executemany(
        "INSERT INTO fts(rowid, title, body, app_id) VALUES (?, '', ?, ?)",
        [(m, body, a) for m, a, body in rows],
    )
    single.commit()
    split = sqlite3.connect(directory / "split.db")
    for app_id in range(APPS):
        split.execute(
            f"CREATE VIRTUAL TABLE fts_{app_id} USING fts5(title, body, chat_ref, "
            "tokenize = 'unicode61 remove_diacritics 2')"
        )
    for message_id, app_id, body in rows:
        split.execute(
            f"INSERT INTO fts_{app_id}(rowid, title, body, chat_ref) VALUES (?, '', ?, 'c1')",
            (message_id, body),
        )
    split.commit()
    app = 0  # the largest app
    print(f"{count} messages in {APPS} apps; app {app} holds the most")
    print(f"{'query':10} {'matches':>8} {'single+filter ms':>17} {'per-app ms':>11}")
    for label, word in (("common", "w0"), ("mid", "w40"), ("rare", "w15000")):
        matches = split.execute(
            f"SELECT count(*) FROM fts_{app} WHERE fts_{app} MATCH ?", (word,)
        ).fetchone()[0]
        single_ms = time_query(
            single,
            "SELECT rowid, bm25(fts, 10.0, 1.0) AS s FROM fts WHERE fts MATCH ? "
            "AND app_id = ? ORDER BY s LIMIT 200",
            (f'{{title body}} : "{word}"', app),
        )
        split_ms = time_query(
            split,
            f"SELECT rowid, bm25(fts_{app}, 10.0, 1.0, 0.0) AS s FROM fts_{app} "
            f"WHERE fts_{app} MATCH ? ORDER BY s LIMIT 200",
            (f'{{title body}} : "{word}"',),
        )
        print(f"{label:10} {matches:>8} {single_ms:>17.1f} {split_ms:>11.1f}")


if __name__ == "__main__":
    main()
