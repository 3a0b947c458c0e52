"""The scale benchmark: a generated fixture, backfill, search per query class against
the raw FTS5 floor, read_chat, size and memory. Prints a table and writes JSON.

Run: python tests/benchmarks/bench_scale.py --messages 1000000 [--out bench-results/scale.json]
(`--messages 20000` runs in seconds; the test suite runs it small to keep it working.)
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.database import SqliteDatabase
from chat_recall.adapters.sqlite.fts5_query import compile_match
from chat_recall.adapters.sqlite.migrations import fts_table_name
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.search.query_builder import build_query
from tests.benchmarks.fixture import generate

QUERY_CLASSES = {
    "rare term": None,  # from the manifest: a planted term in the oldest messages
    "common word": "component",
    "multi-word": "session token cache",
    "phrase": "login form",
    "file name": "session.ts",
    "japanese word": "認証",
    "stopword question": "what did we decide about the login form for the app",
}


def current_rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 1e6


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def timed(function: Any, repeats: int) -> list[float]:
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def backfill(recall: ChatRecall, total: int) -> dict[str, Any]:
    started = time.perf_counter()
    projection = storage = merging = longest = longest_merge = 0.0
    indexed = batches = 0
    rss_samples = []
    next_sample = 0.25
    while True:
        report = recall.indexer.run_batch()
        batches += 1
        indexed += report.indexed + report.deleted
        projection += report.projection_seconds
        storage += report.duration_seconds - report.projection_seconds
        longest = max(longest, report.duration_seconds)
        longest_merge = max(longest_merge, report.merge_seconds)
        merging += report.merge_seconds
        if indexed >= next_sample * total:
            rss_samples.append(round(current_rss_mb(), 1))
            next_sample += 0.25
        if not report.did_work and recall.dirty.backlog().is_empty:
            break
    elapsed = time.perf_counter() - started
    return {
        "messages": indexed,
        "seconds": round(elapsed, 2),
        "messages_per_second": round(indexed / elapsed),
        "projection_messages_per_second": round(indexed / projection) if projection else None,
        "storage_messages_per_second": round(indexed / storage) if storage else None,
        "batches": batches,
        "longest_batch_ms": round(longest * 1000, 1),
        "longest_merge_step_ms": round(longest_merge * 1000, 1),
        "merge_seconds": round(merging, 2),
        "rss_mb_at_25_50_75_100_percent": rss_samples,
    }


def _search(recall: ChatRecall, context: CallContext, text: str) -> None:
    recall.search_chats(context, {"query": text})


def _floor(database: SqliteDatabase, table: str, match: str) -> None:
    """The same query as one raw FTS5 statement: the floor the product is measured on."""
    with database.reading() as connection:
        connection.execute(
            f'SELECT rowid, bm25("{table}", 10.0, 1.0, 0.0) AS s FROM "{table}" '
            f'WHERE "{table}" MATCH ? ORDER BY s, rowid LIMIT 200',
            (match,),
        ).fetchall()


def search_classes(recall: ChatRecall, manifest: dict[str, Any], repeats: int) -> dict[str, Any]:
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    app_id = 1  # the largest app
    rare = [entry for entry in manifest["rare_terms"] if entry["app_id"] == app_id]
    results = {}
    for name, query in QUERY_CLASSES.items():
        text = query or rare[0]["term"]
        table = fts_table_name(app_id)
        match = compile_match(build_query(text).match, None)
        product = timed(partial(_search, recall, CallContext(app_id), text), repeats)
        raw = timed(partial(_floor, database, table, match), repeats)
        with database.reading() as connection:
            matches = connection.execute(
                f'SELECT count(*) FROM "{table}" WHERE "{table}" MATCH ?', (match,)
            ).fetchone()[0]
        results[name] = {
            "query": text,
            "matches": matches,
            "median_ms": round(statistics.median(product), 2),
            "p95_ms": round(percentile(product, 0.95), 2),
            "floor_median_ms": round(statistics.median(raw), 2),
            "floor_p95_ms": round(percentile(raw, 0.95), 2),
            "overhead_ratio": round(
                statistics.median(product) / max(statistics.median(raw), 1e-6), 2
            ),
        }
    return results


def reads(recall: ChatRecall, path: Path, repeats: int) -> dict[str, Any]:
    import sqlite3

    connection = sqlite3.connect(path)
    chat_id, count = connection.execute(
        "SELECT c.id, count(*) FROM chats c JOIN messages m ON m.chat_id = c.id "
        "WHERE c.app_id = 1 GROUP BY c.id ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    ids = [
        row[0]
        for row in connection.execute("SELECT id FROM messages WHERE chat_id = ?", (chat_id,))
    ]
    connection.close()
    generator = random.Random(5)
    context = CallContext(1)
    around = timed(
        lambda: recall.read_chat(
            context, {"chat_id": chat_id, "around_message_id": generator.choice(ids)}
        ),
        repeats,
    )
    page = timed(
        lambda: recall.read_chat(
            context, {"chat_id": chat_id, "offset": generator.randrange(count), "limit": 10}
        ),
        repeats,
    )
    return {
        "chat_messages": count,
        "around_median_ms": round(statistics.median(around), 2),
        "around_p95_ms": round(percentile(around, 0.95), 2),
        "page_median_ms": round(statistics.median(page), 2),
        "page_p95_ms": round(percentile(page, 0.95), 2),
    }


def correctness(recall: ChatRecall, manifest: dict[str, Any]) -> dict[str, Any]:
    missed = []
    for entry in manifest["rare_terms"]:
        output = json.loads(
            recall.search_chats(CallContext(entry["app_id"]), {"query": entry["term"]})
        )
        found = {m["message_id"] for r in output["results"] for m in r["matches"]}
        if entry["message_id"] not in found:
            missed.append(entry["term"])
    leaked = []
    for term in manifest["hidden_terms"]:
        for app_id in range(1, manifest["apps"] + 1):
            output = json.loads(recall.search_chats(CallContext(app_id), {"query": term}))
            if output["results"]:
                leaked.append(term)
    return {
        "planted_rare_terms": len(manifest["rare_terms"]),
        "rare_terms_missed": missed,
        "hidden_terms": len(manifest["hidden_terms"]),
        "hidden_terms_found": leaked,
    }


def run(messages: int, out: Path | None, repeats: int = 30) -> dict[str, Any]:
    directory = Path(tempfile.mkdtemp(prefix="chat-recall-bench-"))
    path = directory / "fixture.db"
    started = time.perf_counter()
    manifest = generate(path, messages=messages)
    generation = time.perf_counter() - started
    recall = bootstrap.sqlite(path)
    results: dict[str, Any] = {
        "fixture": {
            "messages": manifest["messages"],
            "chats": manifest["chats"],
            "apps": manifest["apps"],
            "largest_app_messages": max(manifest["per_app"]),
            "generation_seconds": round(generation, 1),
        },
    }
    results["backfill"] = backfill(recall, manifest["messages"])
    results["search"] = search_classes(recall, manifest, repeats)
    results["read_chat"] = reads(recall, path, repeats * 5)
    results["correctness"] = correctness(recall, manifest)
    recall.close()
    size = sum(p.stat().st_size for p in directory.glob("fixture.db*"))
    results["database_mb"] = round(size / 1e6, 1)
    shutil.rmtree(directory, ignore_errors=True)
    results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, 1)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return results


def print_table(results: dict[str, Any]) -> None:
    fixture, backfill_ = results["fixture"], results["backfill"]
    print(
        f"fixture: {fixture['messages']:,} messages, {fixture['chats']:,} chats, "
        f"{fixture['apps']} apps (largest {fixture['largest_app_messages']:,}), "
        f"generated in {fixture['generation_seconds']}s"
    )
    print(
        f"backfill: {backfill_['messages_per_second']:,} msg/s overall "
        f"(projection {backfill_['projection_messages_per_second']:,}/s, "
        f"storage {backfill_['storage_messages_per_second']:,}/s), "
        f"longest batch {backfill_['longest_batch_ms']} ms "
        f"(merge step {backfill_['longest_merge_step_ms']} ms), "
        f"RSS {backfill_['rss_mb_at_25_50_75_100_percent']} MB"
    )
    print(f"{'search class':20} {'matches':>8} {'median':>8} {'p95':>8} {'floor':>8} {'ratio':>6}")
    for name, row in results["search"].items():
        print(
            f"{name:20} {row['matches']:>8} {row['median_ms']:>8} {row['p95_ms']:>8} "
            f"{row['floor_median_ms']:>8} {row['overhead_ratio']:>6}"
        )
    read = results["read_chat"]
    print(
        f"read_chat in a {read['chat_messages']}-message chat: around median "
        f"{read['around_median_ms']} ms p95 {read['around_p95_ms']} ms; page median "
        f"{read['page_median_ms']} ms p95 {read['page_p95_ms']} ms"
    )
    print(f"database {results['database_mb']} MB, peak RSS {results['peak_rss_mb']} MB")
    print(f"correctness: {results['correctness']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=Path("bench-results/scale.json"))
    parser.add_argument("--repeats", type=int, default=30)
    arguments = parser.parse_args()
    print_table(run(arguments.messages, arguments.out, arguments.repeats))


if __name__ == "__main__":
    sys.exit(main())
