"""What chat-recall's triggers cost the host's own writes, measured in one run.

Three copies of the same generated history: `plain` (no chat-recall), `index` (only an
index on the host's messages in chat order, no triggers: the alternative to the order
table of chat-recall's own that the triggers keep, for comparison) and `recall`
(installed and fully indexed). The same host writer (one statement per transaction, WAL,
`synchronous = NORMAL`, `foreign_keys = ON`, as an embedding app runs SQLite) does the
same single-row inserts, updates and deletes on each copy, in rounds of alternating
order so machine noise hits all alike; then deletes a large chat (cascading to its
messages) of two sizes in each copy. Prints throughput per operation and the ratio
with/without, by wall-clock time and by the writer's CPU time (which the load of a
shared machine distorts far less), and the extra time a chat delete costs the host;
asserts nothing.

Run: python -m tests.benchmarks.bench_host_writes [--messages 100000] [--chat 200000]
(`--messages 3000 --chat 2000` runs in seconds; the test suite runs it small.)
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from chat_recall.adapters import bootstrap
from tests.benchmarks.fixture import generate

OPERATIONS = ("insert", "update", "delete")
VARIANTS = ("plain", "index", "recall")
# The `index` copy's index on the host's messages, in the order a chat is read.
ORDER_INDEX = "bench_messages_order"


def host_connection(path: Path, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """A host's connection: autocommit statements, WAL, cascading foreign keys."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute(f"PRAGMA synchronous = {synchronous}")
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("PRAGMA busy_timeout = 5000")
    return connection


def prepare(directory: Path, messages: int) -> dict[str, Path]:
    """The same history twice: without chat-recall, and with it installed and indexed."""
    source = directory / "fixture.db"
    generate(source, messages=messages)
    paths = {variant: directory / f"{variant}.db" for variant in VARIANTS}
    for path in paths.values():
        shutil.copyfile(source, path)
    source.unlink()
    with bootstrap.sqlite(paths["recall"]) as recall:
        recall.indexer.run_until_idle()
    connection = sqlite3.connect(paths["index"])
    connection.execute(f"CREATE INDEX {ORDER_INDEX} ON messages(chat_id, created_at, id)")
    connection.close()
    return paths


class Workload:
    """The same operations for both copies, drawn once from a seeded generator."""

    def __init__(self, path: Path, seed: int) -> None:
        connection = sqlite3.connect(path)
        self.chat_ids = [row[0] for row in connection.execute("SELECT id FROM chats ORDER BY id")]
        self.message_ids = [
            row[0] for row in connection.execute("SELECT id FROM messages ORDER BY id")
        ]
        self.contents = [
            row[0]
            for row in connection.execute(
                "SELECT content FROM messages WHERE length(content) < 4000 ORDER BY id LIMIT 500"
            )
        ]
        self.next_id = int(connection.execute("SELECT max(id) FROM messages").fetchone()[0]) + 1
        connection.close()
        self.random = random.Random(seed)
        self.random.shuffle(self.message_ids)  # deletes take distinct ids from the end

    def batch(self, operation: str, count: int) -> list[tuple[str, tuple[Any, ...]]]:
        pick = self.random
        statements: list[tuple[str, tuple[Any, ...]]] = []
        for _ in range(count):
            if operation == "insert":
                statements.append(
                    (
                        "INSERT INTO messages(id, chat_id, role, content, created_at) "
                        "VALUES (?, ?, 'user', ?, ?)",
                        (
                            self.next_id,
                            pick.choice(self.chat_ids),
                            pick.choice(self.contents),
                            1_800_000_000,
                        ),
                    )
                )
                self.next_id += 1
            elif operation == "update":
                statements.append(
                    (
                        "UPDATE messages SET content = ? WHERE id = ?",
                        (pick.choice(self.contents) + " (edited)", pick.choice(self.message_ids)),
                    )
                )
            else:
                statements.append(("DELETE FROM messages WHERE id = ?", (self.message_ids.pop(),)))
        return statements


def timed(
    connection: sqlite3.Connection, statements: list[tuple[str, tuple[Any, ...]]]
) -> tuple[float, float]:
    """Wall-clock and CPU seconds for the statements, each its own transaction."""
    started, cpu = time.perf_counter(), time.process_time()
    for sql, parameters in statements:
        connection.execute(sql, parameters)
    return time.perf_counter() - started, time.process_time() - cpu


def single_row(
    paths: dict[str, Path], rounds: int, per_round: int, synchronous: str
) -> dict[str, Any]:
    workload = Workload(paths["plain"], seed=11)
    connections = {variant: host_connection(paths[variant], synchronous) for variant in VARIANTS}
    rates: dict[tuple[str, str], list[float]] = {}
    cpu_rates: dict[tuple[str, str], list[float]] = {}
    for round_number in range(rounds):
        for operation in OPERATIONS:
            statements = workload.batch(operation, per_round)
            order = list(VARIANTS)
            random.Random(round_number).shuffle(order)
            for variant in order:
                wall, cpu = timed(connections[variant], statements)
                rates.setdefault((operation, variant), []).append(per_round / wall)
                cpu_rates.setdefault((operation, variant), []).append(per_round / max(cpu, 1e-9))
    for connection in connections.values():
        connection.close()
    results = {}
    for operation in OPERATIONS:
        wall = {v: statistics.median(rates[(operation, v)]) for v in VARIANTS}
        cpu = {v: statistics.median(cpu_rates[(operation, v)]) for v in VARIANTS}
        results[operation] = {
            "plain_per_second": round(wall["plain"]),
            "recall_per_second": round(wall["recall"]),
            "ratio": round(wall["recall"] / wall["plain"], 2),
            "cpu_ratio": round(cpu["recall"] / cpu["plain"], 2),
            "index_only_cpu_ratio": round(cpu["index"] / cpu["plain"], 2),
        }
    return results


def add_chat(path: Path, chat_id: int, size: int, first_id: int) -> None:
    connection = host_connection(path)
    connection.execute("BEGIN")
    connection.execute(
        "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, 1, 'a large chat', 0)",
        (chat_id,),
    )
    words = "the session store decision billing layout token cache".split()
    generator = random.Random(chat_id)
    connection.executemany(
        "INSERT INTO messages(id, chat_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
        (
            (
                first_id + i,
                chat_id,
                "user" if i % 2 else "assistant",
                " ".join(generator.choices(words, k=40)),
                1_800_000_000 + i,
            )
            for i in range(size)
        ),
    )
    connection.execute("COMMIT")
    connection.close()


def chat_deletes(paths: dict[str, Path], sizes: list[int]) -> list[dict[str, Any]]:
    """Delete whole chats (ON DELETE CASCADE) of each size from both copies; the
    recall copy has them indexed first, as a host's old chats are."""
    connection = sqlite3.connect(paths["plain"])
    chat_id = int(connection.execute("SELECT max(id) FROM chats").fetchone()[0]) + 1
    first_id = int(connection.execute("SELECT max(id) FROM messages").fetchone()[0]) + 1_000_000
    connection.close()
    planned = []
    for size in sizes:
        for variant in VARIANTS:
            add_chat(paths[variant], chat_id, size, first_id)
        planned.append((chat_id, size))
        chat_id += 1
        first_id += size
    with bootstrap.sqlite(paths["recall"]) as recall:
        recall.indexer.run_until_idle()
    results = []
    for chat_id, size in planned:
        seconds: dict[str, float] = {}
        cpu: dict[str, float] = {}
        for variant in VARIANTS:
            connection = host_connection(paths[variant])
            seconds[variant], cpu[variant] = timed(
                connection, [("DELETE FROM chats WHERE id = ?", (chat_id,))]
            )
            left = connection.execute(
                "SELECT count(*) FROM messages WHERE chat_id = ?", (chat_id,)
            ).fetchone()[0]
            assert left == 0, "the cascade must delete the chat's messages"
            connection.close()
        results.append(
            {
                "messages": size,
                "plain_ms": round(seconds["plain"] * 1000, 1),
                "index_only_ms": round(seconds["index"] * 1000, 1),
                "recall_ms": round(seconds["recall"] * 1000, 1),
                "extra_ms": round((seconds["recall"] - seconds["plain"]) * 1000, 1),
                "triggers_extra_ms": round((seconds["recall"] - seconds["index"]) * 1000, 1),
                "ratio": round(seconds["recall"] / max(seconds["plain"], 1e-9), 2),
                "cpu_plain_ms": round(cpu["plain"] * 1000, 1),
                "cpu_index_only_ms": round(cpu["index"] * 1000, 1),
                "cpu_recall_ms": round(cpu["recall"] * 1000, 1),
            }
        )
    return results


def run(
    messages: int,
    chat: int,
    *,
    rounds: int = 7,
    per_round: int = 500,
    synchronous: str = "NORMAL",
    out: Path | None = None,
) -> dict[str, Any]:
    directory = Path(tempfile.mkdtemp(prefix="chat-recall-host-writes-"))
    try:
        paths = prepare(directory, messages)
        results: dict[str, Any] = {
            "messages": messages,
            "synchronous": synchronous,
            "rounds": rounds,
            "per_round": per_round,
            "single_row": single_row(paths, rounds, per_round, synchronous),
            "chat_delete": chat_deletes(paths, sorted({max(chat // 10, 1), chat})),
        }
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2))
    return results


def print_table(results: dict[str, Any]) -> None:
    print(
        f"host writes on a {results['messages']:,}-message history "
        f"(synchronous={results['synchronous']}, median of {results['rounds']} rounds "
        f"of {results['per_round']} single-row transactions)"
    )
    print(
        f"{'operation':10} {'without/s':>10} {'with/s':>10} {'ratio':>6} {'CPU ratio':>10} "
        f"{'(host index alone)':>20}"
    )
    for operation, row in results["single_row"].items():
        print(
            f"{operation:10} {row['plain_per_second']:>10,} {row['recall_per_second']:>10,} "
            f"{row['ratio']:>6} {row['cpu_ratio']:>10} {row['index_only_cpu_ratio']:>20}"
        )
    print(
        f"{'chat delete':12} {'without ms':>10} {'index ms':>9} {'with ms':>10} "
        f"{'extra ms':>9} {'triggers ms':>12} {'ratio':>6}"
    )
    for row in results["chat_delete"]:
        print(
            f"{row['messages']:>8,} msg {row['plain_ms']:>10} {row['index_only_ms']:>9} "
            f"{row['recall_ms']:>10} {row['extra_ms']:>9} {row['triggers_extra_ms']:>12} "
            f"{row['ratio']:>6}"
        )
        print(
            f"{'   CPU ms':12} {row['cpu_plain_ms']:>10} {row['cpu_index_only_ms']:>9} "
            f"{row['cpu_recall_ms']:>10} "
            f"{row['cpu_recall_ms'] - row['cpu_plain_ms']:>9.1f} "
            f"{row['cpu_recall_ms'] - row['cpu_index_only_ms']:>12.1f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--chat", type=int, default=200_000, help="messages in the large chat")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--per-round", type=int, default=500)
    parser.add_argument("--synchronous", choices=["NORMAL", "FULL", "OFF"], default="NORMAL")
    parser.add_argument("--out", type=Path, default=Path("bench-results/host_writes.json"))
    arguments = parser.parse_args(argv)
    print_table(
        run(
            arguments.messages,
            arguments.chat,
            rounds=arguments.rounds,
            per_round=arguments.per_round,
            synchronous=arguments.synchronous,
            out=arguments.out,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
