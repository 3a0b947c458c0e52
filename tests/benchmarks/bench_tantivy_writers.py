"""What the tantivy engine's writers cost in memory when a backfill's messages
interleave many apps, with the bound on writers open at once (`MAX_OPEN_WRITERS`) and
without it (as many as there are apps), each in a fresh process.

A history of `--apps` apps, one chat each, whose `--messages` messages come round-robin
(app 1, app 2, ..., app 1, ...: the worst case for the bound, every batch needs every
app's writer) is indexed to the end in-process; prints the time and the peak growth of
anonymous memory (sampled every 5 ms), and checks every message is found. Asserts
nothing.

Run: python -m tests.benchmarks.bench_tantivy_writers [--apps 200] [--messages 20000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.adapters.tantivy import engine, index_store
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId
from chat_recall.domain.query import MatchQuery, ScopedQuery

SECONDS = 1_700_000_000
UNBOUNDED = 1_000_000


def anonymous_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon"):
                return int(line.split()[1]) / 1024
    return 0.0


def one(apps: int, messages: int, cap: int) -> dict[str, Any]:
    """One variant, in this process (the bound set for the while)."""
    names = vars(index_store)
    saved, names["MAX_OPEN_WRITERS"] = names["MAX_OPEN_WRITERS"], cap
    try:
        return _indexed(apps, messages, cap)
    finally:
        names["MAX_OPEN_WRITERS"] = saved


def _indexed(apps: int, messages: int, cap: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-writers-") as directory:
        return _indexed_in(Path(directory), apps, messages, cap)


def _indexed_in(directory: Path, apps: int, messages: int, cap: int) -> dict[str, Any]:
    recall = bootstrap.sqlite(directory / "h.db", create_host_schema=True, engine=Engine.TANTIVY)
    chats = [
        recall.host.create_chat(AppId(app), f"chat {app}", SECONDS) for app in range(1, apps + 1)
    ]
    for n in range(messages // apps):
        for app, chat_id in enumerate(chats, start=1):
            recall.host.add_message(
                chat_id, Role.USER, f"message {n} of app {app} about parsing", SECONDS + n
            )
    base = anonymous_mb()
    peak = [base]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], anonymous_mb())

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.perf_counter()
    recall.indexer.run_until_idle()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    found = sum(
        len(recall.index.search(ScopedQuery(MatchQuery.of_words("parsing"), AppId(app))))
        for app in (1, apps)
    )
    recall.close()
    return {
        "cap": cap,
        "seconds": round(seconds, 2),
        "peak_growth_mb": round(peak[0] - base, 1),
        "found_in_first_and_last_app": found,
        "expected": 2 * (messages // apps),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--apps", type=int, default=200)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one is not None:
        print(json.dumps(one(arguments.apps, arguments.messages, arguments.one)))
        return
    print(
        f"{arguments.messages:,} messages round-robin over {arguments.apps} apps, "
        "indexed with the tantivy engine, each variant in a fresh process:"
    )
    for cap, label in ((engine.MAX_OPEN_WRITERS, "bounded"), (UNBOUNDED, "a writer per app")):
        output = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.benchmarks.bench_tantivy_writers",
                "--apps",
                str(arguments.apps),
                "--messages",
                str(arguments.messages),
                "--one",
                str(cap),
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        result = json.loads(output)
        print(
            f"  {label:18s} ({cap if cap != UNBOUNDED else arguments.apps} writers at most): "
            f"{result['seconds']} s, peak anonymous memory +{result['peak_growth_mb']} MB, "
            f"found {result['found_in_first_and_last_app']} of {result['expected']}"
        )


if __name__ == "__main__":
    main()
