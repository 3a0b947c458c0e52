"""What an install under a Snowball language costs the SQLite engine, against English in
the same run: the stems are computed in Python and written beside the text
(`migrations.WRITTEN_TEXT_COLUMNS`), where English leaves stemming to FTS5's `porter`.

Writes the scale fixture (`fixture.py`, standard profile: English text), copies it once
per language, and for each copy times a full backfill through the facade
(`run_until_idle`), the database's size after it, and the median of `search_chats` for
some frequent words in the largest app.

Run: python -m tests.benchmarks.bench_languages [--messages 20000] [--language german ...]
Prints a table and writes `bench-results/languages.json`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from chat_recall.adapters import bootstrap
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.text.language import Language
from tests.benchmarks.fixture import generate

WORDS = ("deploy", "session", "database", "payment", "tests", "error")
REPEATS = 5


def _largest_app(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        row = connection.execute(
            "SELECT c.app_id FROM messages m JOIN chats c ON c.id = m.chat_id "
            "GROUP BY c.app_id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()
    finally:
        connection.close()
    return int(row[0])


def measure(fixture: Path, language: Language, directory: Path) -> dict[str, float]:
    path = directory / f"{language.value}.db"
    shutil.copy(fixture, path)
    started = time.perf_counter()
    with bootstrap.sqlite(path, language=language) as recall:
        recall.indexer.run_until_idle()
        backfill = time.perf_counter() - started
        app = _largest_app(path)
        times = []
        for _ in range(REPEATS):
            for word in WORDS:
                begun = time.perf_counter()
                recall.call_tool("search_chats", CallContext(app), {"query": word})
                times.append(time.perf_counter() - begun)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return {
        "backfill_seconds": backfill,
        "database_bytes": path.stat().st_size,
        "search_p50_ms": statistics.median(times) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--language", nargs="+", default=["german"])
    parser.add_argument("--out", type=Path, default=Path("bench-results/languages.json"))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        fixture = directory / "fixture.db"
        generate(fixture, messages=arguments.messages)
        languages = [Language.ENGLISH, *(Language.named(name) for name in arguments.language)]
        results = {language.value: measure(fixture, language, directory) for language in languages}
    english = results[Language.ENGLISH.value]
    print(f"{arguments.messages} messages (standard profile), SQLite FTS5")
    print("| language | backfill s | x english | size MB | x english | search p50 ms |")
    print("|---|---|---|---|---|---|")
    for name, figures in results.items():
        print(
            f"| {name} | {figures['backfill_seconds']:.1f} "
            f"| {figures['backfill_seconds'] / english['backfill_seconds']:.2f} "
            f"| {figures['database_bytes'] / 1e6:.1f} "
            f"| {figures['database_bytes'] / english['database_bytes']:.2f} "
            f"| {figures['search_p50_ms']:.1f} |"
        )
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(
        json.dumps({"messages": arguments.messages, "results": results}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
