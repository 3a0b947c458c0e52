"""Soak: a host writes at its own pace while chat-recall indexes, answers and is run
from the terminal, all on the host's database.

Two copies of the same history: `plain` (chat-recall never installed) and `recall`
(installed and indexed). The host writer is its own process, as a host app is: WAL with
`synchronous = NORMAL` (or FULL), `busy_timeout` 5000 ms, `foreign_keys` on, one statement per
transaction (inserts, edits and deletes of messages; new, renamed and deleted chats,
among them a large chat whose rename re-indexes all its messages). It writes on a fixed
schedule and alternates between the two copies phase by phase (same number of writes,
same random sequence), so machine noise falls on both alike and the `plain` phases are
the same run without chat-recall.

chat-recall runs all the time on the `recall` copy: a process embedding it (the
background indexer, notified as often as the host writes; four searchers calling
`search_chats` and `read_chat`), and `chat-recall index` / `chat-recall status` commands
now and then. The searchers keep running during the `plain` phases (on the `recall`
copy), so both phases share the CPU alike and the comparison isolates what chat-recall
does to the host's database: its locks and its triggers.

Two latencies per host write: the statement's own time (what the host's write call
blocks for: lock waits, triggers), and the time from when the write was due, so a stall
counts for every write it delays (no coordinated omission; on a loaded machine this one
also carries the writer's own scheduling). Reported: both latencies' percentiles per
phase kind, BUSY errors (`database is locked` after 5 s), the longest write transaction
chat-recall held (embedded indexer and commands, with the function that held it), and
what chat-recall did meanwhile.

Run: python -m tests.benchmarks.soak [--minutes 4] [--messages 200000]
`tests/test_soak.py` runs a 20-second version in CI.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.application import write_lock
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.tools.context import CallContext
from chat_recall.application.write_lock import LONG_MS
from tests.benchmarks.fixture import generate

BUSY_TIMEOUT_MS = 5_000
QUERIES = [
    "session token",
    "login form",
    "database schema",
    "component",
    "fix the button",
    "deploy error",
    "cache",
    "the user settings page",
    "session.ts",
    "認証",
]
LOCK_LINE = re.compile(
    r"write lock: held ([\d.]+) ms in (\d+) transactions, longest ([\d.]+) ms(?: \((\w+)\))?"
    r"; (\d+) over 25 ms, (\d+) over 50 ms, (\d+) over 100 ms"
)
# A host write this long (its statement) is a stall worth explaining.
STALL_MS = 10.0


@dataclasses.dataclass(frozen=True)
class SoakConfig:
    messages: int = 20_000  # the generated history
    large_chat: int = 10_000  # messages in the chat the host renames now and then
    large_rename_every: int = 500  # writes between renames of the large chat
    phases: int = 20  # alternating plain / recall phases (an even number)
    writes_per_phase: int = 100
    writes_per_second: float = 100.0
    searchers: int = 4
    search_pause_seconds: tuple[float, float] = (0.05, 0.15)  # an agent reads between calls
    command_every_seconds: float = 3.0  # `index` this often, `status` 1.5 times as long
    # The host's durability. NORMAL (usual with WAL) makes its writes cheapest, so what
    # chat-recall adds shows most; with FULL every commit waits for the disk.
    synchronous: str = "NORMAL"

    @property
    def seconds(self) -> float:
        return self.phases * self.writes_per_phase / self.writes_per_second


# -- the host ------------------------------------------------------------------------------


def host_connection(path: Path, synchronous: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute(f"PRAGMA synchronous = {synchronous}")
    return connection


class HostModel:
    """What the host knows of one copy, and the next write it makes there."""

    def __init__(self, path: Path, seed: int, large_chat_id: int, rename_every: int) -> None:
        connection = sqlite3.connect(path)
        self.chats = [row[0] for row in connection.execute("SELECT id FROM chats ORDER BY id")]
        self.messages = [
            row[0] for row in connection.execute("SELECT id FROM messages ORDER BY id")
        ]
        self.contents = [
            row[0]
            for row in connection.execute(
                "SELECT content FROM messages WHERE length(content) < 3000 ORDER BY id LIMIT 300"
            )
        ]
        self.next_message = int(connection.execute("SELECT max(id) FROM messages").fetchone()[0])
        self.next_chat = int(connection.execute("SELECT max(id) FROM chats").fetchone()[0])
        connection.close()
        self.large_chat_id = large_chat_id
        self.rename_every = rename_every
        self.written = 0
        self.random = random.Random(seed)

    def next_write(self) -> tuple[str, str, tuple[Any, ...]]:
        pick = self.random
        roll = pick.random()
        self.written += 1
        if self.written % self.rename_every == self.rename_every // 2:
            return (
                "rename large chat",
                "UPDATE chats SET title = ? WHERE id = ?",
                (f"the long chat, renamed {self.written}", self.large_chat_id),
            )
        if roll < 0.70 or len(self.messages) < 100:
            self.next_message += 1
            self.messages.append(self.next_message)
            return (
                "insert",
                "INSERT INTO messages(id, chat_id, role, content, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    self.next_message,
                    pick.choice(self.chats),
                    pick.choice(["user", "assistant"]),
                    pick.choice(self.contents),
                    1_800_000_000 + self.next_message,
                ),
            )
        if roll < 0.82:
            return (
                "update",
                "UPDATE messages SET content = ? WHERE id = ?",
                (pick.choice(self.contents) + " (edited)", pick.choice(self.messages)),
            )
        if roll < 0.92:
            victim = self.messages.pop(pick.randrange(len(self.messages)))
            return ("delete", "DELETE FROM messages WHERE id = ?", (victim,))
        if roll < 0.96:
            self.next_chat += 1
            self.chats.append(self.next_chat)
            return (
                "new chat",
                "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, ?, ?, ?)",
                (self.next_chat, pick.randint(1, 10), "a new chat", 1_800_000_000),
            )
        if roll < 0.98:
            chat = pick.choice([chat for chat in self.chats[-200:] if chat != self.large_chat_id])
            return (
                "rename chat",
                "UPDATE chats SET title = ? WHERE id = ?",
                (f"renamed {pick.randrange(10**6)}", chat),
            )
        small = [chat for chat in self.chats[-200:] if chat != self.large_chat_id]
        victim = pick.choice(small)
        self.chats.remove(victim)
        # The host's own bookkeeping: its messages go with it (ON DELETE CASCADE).
        return ("delete chat", "DELETE FROM chats WHERE id = ?", (victim,))


def wal_frames(shm: str) -> int:
    """Frames in the WAL that no checkpoint has copied yet: `mxFrame` - `nBackfill`
    from the WAL index (the `-shm` file: header at 0, `mxFrame` at 16, the checkpoint
    info's `nBackfill` at 96; native byte order). With 1,000 or more frames in the WAL
    (SQLite's default), every host commit runs an automatic checkpoint."""
    try:
        with open(shm, "rb") as file:
            header = file.read(100)
    except OSError:
        return 0
    if len(header) < 100:
        return 0
    frames = int.from_bytes(header[16:20], sys.byteorder)
    return frames - min(frames, int.from_bytes(header[96:100], sys.byteorder))


def host_writer(
    paths: dict[str, str], config: SoakConfig, large_chat_id: int, results: Any
) -> None:
    """Write on a fixed schedule, alternating copies each phase; send every write's
    (variant, kind, latency seconds, busy)."""
    models = {
        variant: HostModel(Path(path), 5, large_chat_id, config.large_rename_every)
        for variant, path in paths.items()
    }
    connections = {
        variant: host_connection(Path(path), config.synchronous) for variant, path in paths.items()
    }
    interval = 1.0 / config.writes_per_second
    # (copy, kind of write, latency from its scheduled time, BUSY, phase, statement time,
    # when the statement began: perf_counter, one clock for every process on Linux)
    # and the copy's WAL frames before the statement, `wal_frames`)
    records: list[tuple[str, str, float, bool, int, float, float, int]] = []
    shms = {variant: f"{path}-shm" for variant, path in paths.items()}
    for phase in range(config.phases):
        # plain, recall, recall, plain, plain, recall, ...: neither kind always goes first
        variant = "plain" if (phase + phase // 2) % 2 == 0 else "recall"
        model, connection = models[variant], connections[variant]
        due = time.perf_counter()  # a phase never inherits the previous one's delay
        for _ in range(config.writes_per_phase):
            due += interval
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            kind, sql, parameters = model.next_write()
            wal = wal_frames(shms[variant])
            busy = False
            began = time.perf_counter()
            try:
                connection.execute(sql, parameters)
            except sqlite3.OperationalError as error:
                busy = "locked" in str(error) or "busy" in str(error)
                if not busy:
                    raise
            ended = time.perf_counter()
            records.append((variant, kind, ended - due, busy, phase, ended - began, began, wal))
    for connection in connections.values():
        connection.close()
    results.put(("host", records))


# -- chat-recall ---------------------------------------------------------------------------


def embedded_recall(path: str, config: SoakConfig, stop: Event, ready: Event, results: Any) -> None:
    """chat-recall as a host embeds it: the background indexer, notified as often as
    the host writes, and searchers calling both tools."""
    write_lock.KEPT_OVER_MS = 0  # every transaction, to line up with the host's waits
    recall = bootstrap.sqlite(Path(path), settings=IndexerSettings(poll_interval_seconds=1.0))
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    recall.start()
    counts = {"searches": 0, "reads": 0, "errors": 0}
    latencies: list[float] = []
    lock = threading.Lock()

    def searcher(seed: int) -> None:
        pick = random.Random(seed)
        while not stop.is_set():
            app_id = pick.randint(1, 3)
            started = time.perf_counter()
            output = json.loads(
                recall.search_chats(CallContext(app_id), {"query": pick.choice(QUERIES)})
            )
            elapsed = time.perf_counter() - started
            hits = [
                (result["chat_id"], match["message_id"])
                for result in output.get("results", [])
                for match in result["matches"]
            ]
            read = None
            if hits and pick.random() < 0.5:
                chat_id, message_id = pick.choice(hits)
                read = json.loads(
                    recall.read_chat(
                        CallContext(app_id), {"chat_id": chat_id, "around_message_id": message_id}
                    )
                )
            with lock:
                counts["searches"] += 1
                latencies.append(elapsed)
                if "error" in output:
                    counts["errors"] += 1
                if read is not None:
                    counts["reads"] += 1
                    # a hit deleted since the search is a legitimate not_found
                    if "error" in read and read["error"]["kind"] != "not_found":
                        counts["errors"] += 1
            stop.wait(pick.uniform(*config.search_pause_seconds))

    threads = [
        threading.Thread(target=searcher, args=(seed,), daemon=True)
        for seed in range(config.searchers)
    ]
    for thread in threads:
        thread.start()
    ready.set()
    while not stop.wait(1.0 / config.writes_per_second):
        recall.notify()
    for thread in threads:
        thread.join()
    recall.close()
    stats = database.lock_stats
    latencies.sort()
    results.put(
        (
            "recall",
            {
                **counts,
                "search_p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
                "search_p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
                "write_transactions": stats.transactions,
                "write_lock_total_ms": round(stats.total_seconds * 1000, 1),
                "longest_write_ms": round(stats.longest_seconds * 1000, 1),
                "longest_write_in": stats.longest_in,
                "writes_over_ms": dict(zip(LONG_MS, stats.over, strict=True)),
                "slow_writes": stats.slow,
            },
        )
    )


def run_commands(
    path: Path, command: str, every: float, stop: threading.Event
) -> list[dict[str, Any]]:
    """`chat-recall <command>` now and then (a person or a cron job at the terminal)."""
    done: list[dict[str, Any]] = []
    slow = path.parent / f"{command}-slow.json"
    while not stop.wait(every):
        started = time.perf_counter()
        finished = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.benchmarks.soak_command",
                str(slow),
                command,
                "--db",
                str(path),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        found = LOCK_LINE.search(finished.stdout)
        done.append(
            {
                "command": command,
                "exit_code": finished.returncode,
                "seconds": round(time.perf_counter() - started, 2),
                "longest_write_ms": float(found.group(3)) if found else None,
                "longest_write_in": found.group(4) if found else None,
                "writes_over_ms": (
                    dict(zip(LONG_MS, (int(found.group(i)) for i in (5, 6, 7)), strict=True))
                    if found
                    else {}
                ),
                "began": started,
                "ended": time.perf_counter(),
                "slow_writes": json.loads(slow.read_text()) if slow.exists() else [],
                "output": (finished.stdout + finished.stderr)[-800:] if finished.returncode else "",
            }
        )
    return done


# -- the run -------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def prepare(directory: Path, config: SoakConfig) -> tuple[dict[str, Path], int]:
    source = directory / "fixture.db"
    generate(source, messages=config.messages)
    connection = sqlite3.connect(source)
    large_chat_id = int(connection.execute("SELECT max(id) FROM chats").fetchone()[0]) + 1
    first = int(connection.execute("SELECT max(id) FROM messages").fetchone()[0]) + 1
    contents = [
        row[0] for row in connection.execute("SELECT content FROM messages ORDER BY id LIMIT 200")
    ]
    connection.execute(
        "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, 1, 'the long chat', 0)",
        (large_chat_id,),
    )
    connection.executemany(
        "INSERT INTO messages(id, chat_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
        (
            (first + i, large_chat_id, "user" if i % 2 else "assistant", contents[i % 200], i)
            for i in range(config.large_chat)
        ),
    )
    connection.commit()
    connection.close()
    paths = {variant: directory / f"{variant}.db" for variant in ("plain", "recall")}
    for path in paths.values():
        shutil.copyfile(source, path)
    source.unlink()
    for stale in directory.glob("fixture.db*"):
        stale.unlink()
    with bootstrap.sqlite(paths["recall"]) as recall:
        recall.indexer.run_until_idle()
    # the plain copy gets WAL too, so the only difference is chat-recall
    sqlite3.connect(paths["plain"]).execute("PRAGMA journal_mode = WAL").fetchone()
    return paths, large_chat_id


def summarise(latencies: list[float]) -> dict[str, float]:
    return {
        name: round(percentile(latencies, share) * 1000, 2)
        for name, share in (("p50_ms", 0.5), ("p95_ms", 0.95), ("p99_ms", 0.99))
    } | {"max_ms": round(max(latencies, default=0.0) * 1000, 2)}


def run_soak(config: SoakConfig, directory: Path | None = None) -> dict[str, Any]:
    own = directory is None
    where = Path(tempfile.mkdtemp(prefix="chat-recall-soak-")) if own else directory
    assert where is not None
    try:
        paths, large_chat_id = prepare(where, config)
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        stop, ready = context.Event(), context.Event()
        embedded = context.Process(
            target=embedded_recall, args=(str(paths["recall"]), config, stop, ready, results)
        )
        embedded.start()
        ready.wait(60)
        writer = context.Process(
            target=host_writer,
            args=({k: str(v) for k, v in paths.items()}, config, large_chat_id, results),
        )
        commands_stop = threading.Event()
        commands: list[dict[str, Any]] = []
        commanders = [
            threading.Thread(
                target=lambda command=command, every=every: commands.extend(
                    run_commands(paths["recall"], command, every, commands_stop)
                )
            )
            for command, every in (
                ("index", config.command_every_seconds),
                ("status", config.command_every_seconds * 1.5),
            )
        ]
        writer.start()
        for commander in commanders:
            commander.start()
        collected = dict([results.get(timeout=config.seconds * 10 + 120)])
        stop.set()
        commands_stop.set()
        collected.update([results.get(timeout=120)])
        writer.join()
        embedded.join()
        for commander in commanders:
            commander.join()
    finally:
        if own:
            shutil.rmtree(where, ignore_errors=True)
    records = collected["host"]
    report: dict[str, Any] = {"config": dataclasses.asdict(config), "host": {}}
    for variant in ("plain", "recall"):
        mine = [r for r in records if r[0] == variant]
        report["host"][variant] = {
            "writes": len(mine),
            "busy_errors": sum(1 for r in mine if r[3]),
            **summarise([r[2] for r in mine]),
            # the statement alone (lock waits, triggers), without scheduling delays
            "statement_p99_ms": round(percentile([r[5] for r in mine], 0.99) * 1000, 2),
            "statement_max_ms": round(max((r[5] for r in mine), default=0.0) * 1000, 2),
            "slowest": [
                (r[1], round(r[2] * 1000, 1), round(r[5] * 1000, 1))
                for r in sorted(mine, key=lambda r: -r[2])[:5]
            ],
        }
    report["phases"] = [
        {
            "variant": mine[0][0],
            **summarise([r[2] for r in mine]),
        }
        for phase in range(config.phases)
        if (mine := [r for r in records if r[4] == phase])
    ]
    for variant in ("plain", "recall"):
        # Host statements that waited (lock waits follow the busy handler's 1, 2, 5, 10 ms
        # sleeps: over 1 ms mostly one wait, over 3 ms two, over 8 ms three...).
        statements = [r[5] * 1000 for r in records if r[0] == variant]
        report["host"][variant]["statements_over_ms"] = {
            ms: sum(1 for t in statements if t > ms) for ms in (1, 3, 8, 18)
        }
    windows = [
        (mine[0][6], mine[-1][6])
        for phase in range(config.phases)
        if (mine := [r for r in records if r[4] == phase]) and mine[0][0] == "recall"
    ]
    ours = [(*w[:3], f"{c['command']}:{w[3]}") for c in commands for w in c["slow_writes"]] + [
        tuple(w) for w in collected["recall"]["slow_writes"]
    ]
    report["recall_phase_transactions"] = transactions_within(windows, ours)
    report["host_waits"] = attribute_waits([r for r in records if r[0] == "recall"], ours, commands)
    report["host_waits_without"] = attribute_waits(
        [r for r in records if r[0] == "plain"], [], commands
    )
    plain, recall = report["host"]["plain"], report["host"]["recall"]
    report["p99_ratio"] = round(recall["p99_ms"] / max(plain["p99_ms"], 1e-6), 2)
    report["chat_recall"] = collected["recall"]
    report["commands"] = commands
    longest = [c["longest_write_ms"] for c in commands if c["longest_write_ms"] is not None]
    report["longest_write_ms"] = max([collected["recall"]["longest_write_ms"], *longest])
    report["writes_over_ms"] = {
        ms: collected["recall"]["writes_over_ms"][ms]
        + sum(c["writes_over_ms"].get(ms, 0) for c in commands)
        for ms in LONG_MS
    }
    report["stalls"] = explain_stalls(
        [r for r in records if r[0] == "recall"],
        [(*w[:3], f"{c['command']}:{w[3]}") for c in commands for w in c["slow_writes"]]
        + [tuple(w) for w in collected["recall"]["slow_writes"]],
        commands,
    )
    return report


def transactions_within(
    windows: list[tuple[float, float]], slow: list[Any]
) -> dict[str, dict[str, float]]:
    """Our transactions over 2 ms (`index:` for a command's) that began while the host wrote to
    the `recall` copy (its phases' windows), by function: count, p50 and longest ms."""
    found: dict[str, list[float]] = {}
    for began, seconds, _, function in slow:
        if any(start <= began <= end for start, end in windows):
            found.setdefault(function, []).append(seconds * 1000)
    return {
        function: {
            "count": len(times),
            "p50_ms": round(percentile(times, 0.5), 1),
            "max_ms": round(max(times), 1),
        }
        for function, times in sorted(found.items())
    }


def met(record: Any, ours: list[Any], commands: list[dict[str, Any]]) -> tuple[Any, list[str]]:
    """What a host statement overlapped: the longest of our transactions (None if none)
    and the commands running meanwhile."""
    began, ended = record[6], record[6] + record[5]
    holders = [w for w in ours if w[0] < ended and w[0] + w[1] > began]
    running = [c["command"] for c in commands if c["began"] < ended and c["ended"] > began]
    return max(holders, key=lambda w: w[1], default=None), running


def attribute_waits(
    records: list[Any], ours: list[Any], commands: list[dict[str, Any]]
) -> dict[str, dict[str, int]]:
    """Host statements (with chat-recall) over 3 ms and over 8 ms, by the function of the
    longest of our transactions they overlapped; else `<command> only` (one ran
    meanwhile) or `none`. And `wal of 1,000 frames`: of them, how many began with that
    many frames not yet checkpointed (SQLite's default auto-checkpoint size, where the
    host's own commits checkpoint). `all`: every statement, how many began with that many
    frames, and the frames' p50 and p99."""
    found: dict[str, dict[str, int]] = {}
    for over in (3.0, 8.0):
        counts: dict[str, int] = {}
        for record in records:
            if record[5] * 1000 <= over:
                continue
            longest, running = met(record, ours, commands)
            if longest is not None:
                key = longest[3]
            elif running:
                key = f"{'+'.join(sorted(running))} only"
            else:
                key = "none"
            counts[key] = counts.get(key, 0) + 1
            if record[7] >= 1000:
                counts["wal of 1,000 frames"] = counts.get("wal of 1,000 frames", 0) + 1
        found[f"over {over:.0f} ms"] = dict(sorted(counts.items(), key=lambda item: -item[1]))
    found["all"] = {
        "statements": len(records),
        "wal of 1,000 frames": sum(1 for record in records if record[7] >= 1000),
        "wal frames p50": int(percentile([float(r[7]) for r in records], 0.5)),
        "wal frames p99": int(percentile([float(r[7]) for r in records], 0.99)),
    }
    return found


def explain_stalls(
    records: list[Any], slow: list[Any], commands: list[dict[str, Any]]
) -> dict[str, Any]:
    """Host writes (with chat-recall) whose statement took over STALL_MS: how many
    overlapped a chat-recall transaction over 25 ms (by the function holding it;
    `index:` / `status:` for a command's), how many one up to 25 ms, how many only ran
    while a command ran (its CPU, its I/O), how many neither."""
    stalls = [r for r in records if r[5] * 1000 > STALL_MS]
    by_function: dict[str, int] = {}
    during_command = neither = short = 0
    for record in stalls:
        longest, running = met(record, slow, commands)
        if longest is not None and longest[1] * 1000 > LONG_MS[0]:
            by_function[longest[3]] = by_function.get(longest[3], 0) + 1
        elif longest is not None:
            short += 1
        elif running:
            during_command += 1
        else:
            neither += 1
    slowest_functions: dict[str, int] = {}
    slow = [write for write in slow if write[1] * 1000 > LONG_MS[0]]
    for write in slow:
        slowest_functions[write[3]] = slowest_functions.get(write[3], 0) + 1
    return {
        "over_ms": STALL_MS,
        "count": len(stalls),
        "overlapping_a_transaction_over_25ms": dict(sorted(by_function.items())),
        "overlapping_one_up_to_25ms": short,
        "during_a_command_only": during_command,
        "neither": neither,
        "transactions_over_25ms_by_function": dict(sorted(slowest_functions.items())),
        "commit_share_of_slow": round(
            sum(w[2] for w in slow) / max(sum(w[1] for w in slow), 1e-9), 2
        ),
    }


def print_report(report: dict[str, Any]) -> None:
    config = report["config"]
    print(
        f"soak: {config['messages']:,}-message history + a {config['large_chat']:,}-message "
        f"chat; host writes {config['writes_per_second']:.0f}/s "
        f"(synchronous={config['synchronous']}, busy_timeout {BUSY_TIMEOUT_MS} ms), "
        f"{config['phases']} alternating phases of {config['writes_per_phase']} writes"
    )
    print(
        f"{'host writes':12} {'n':>6} {'busy':>5} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>9}"
        f" {'statement p99':>14} {'max':>8}"
    )
    for variant, row in report["host"].items():
        name = "with" if variant == "recall" else "without"
        print(
            f"{name:12} {row['writes']:>6} {row['busy_errors']:>5} {row['p50_ms']:>8} "
            f"{row['p95_ms']:>8} {row['p99_ms']:>8} {row['max_ms']:>9} "
            f"{row['statement_p99_ms']:>14} {row['statement_max_ms']:>8}"
        )
    print(f"host p99 with / without chat-recall: {report['p99_ratio']}")
    print(
        "host statements over 1/3/8/18 ms, without / with: "
        f"{report['host']['plain']['statements_over_ms']} / "
        f"{report['host']['recall']['statements_over_ms']}"
    )
    while_writing = report["recall_phase_transactions"]
    print(f"our transactions over 2 ms while the host wrote: {while_writing}")
    print(f"host statements over 3 ms, by what they met: {report['host_waits']}")
    print(f"without chat-recall: {report['host_waits_without']}")
    recall = report["chat_recall"]
    print(
        f"chat-recall: {recall['searches']} searches (p50 {recall['search_p50_ms']} ms, "
        f"p99 {recall['search_p99_ms']} ms), {recall['reads']} reads, {recall['errors']} errors; "
        f"embedded indexer: {recall['write_transactions']} write transactions, longest "
        f"{recall['longest_write_ms']} ms ({recall['longest_write_in']})"
    )
    for command in ("index", "status"):
        runs = [c for c in report["commands"] if c["command"] == command]
        holds = [
            (c["longest_write_ms"], c["longest_write_in"])
            for c in runs
            if c["longest_write_ms"] is not None
        ]
        failed = sum(1 for c in runs if c["exit_code"] != 0)
        longest, where = max(holds, key=lambda hold: hold[0], default=(0.0, None))
        print(
            f"`chat-recall {command}`: {len(runs)} runs, {failed} failed, longest write "
            f"transaction {longest} ms ({where})"
        )
    print(f"longest write transaction chat-recall held: {report['longest_write_ms']} ms")
    print(f"chat-recall write transactions over 25/50/100 ms: {report['writes_over_ms']}")
    print(f"host stalls: {report['stalls']}")
    for phase in report["phases"]:
        print(f"  phase {phase}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=4.0)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--large-chat", type=int, default=50_000)
    parser.add_argument(
        "--rename-every", type=int, default=6_000, help="writes between large-chat renames"
    )
    parser.add_argument("--writes-per-second", type=float, default=100.0)
    parser.add_argument("--phase-seconds", type=float, default=5.0)
    parser.add_argument("--synchronous", choices=["FULL", "NORMAL"], default="NORMAL")
    parser.add_argument("--out", type=Path, default=Path("bench-results/soak.json"))
    arguments = parser.parse_args(argv)
    per_phase = max(int(arguments.phase_seconds * arguments.writes_per_second), 1)
    phases = max(2, int(arguments.minutes * 60 / arguments.phase_seconds) // 2 * 2)
    config = SoakConfig(
        messages=arguments.messages,
        large_chat=arguments.large_chat,
        large_rename_every=arguments.rename_every,
        phases=phases,
        writes_per_phase=per_phase,
        writes_per_second=arguments.writes_per_second,
        command_every_seconds=10.0,
        synchronous=arguments.synchronous,
    )
    report = run_soak(config)
    print_report(report)
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
