"""The scale benchmark: a generated fixture (profile `standard` or `heavy`), the
projection alone against raw FTS5 inserts of the same documents, backfill through the
indexer, search per query class against the raw FTS5 floor (for the query chat-recall
sends and for the words alone), read_chat, index size on disk and memory. Prints a
table and writes JSON.

Run: python -m tests.benchmarks.bench_scale --messages 1000000 --profile heavy
     [--engine sqlite|tantivy] [--out bench-results/scale-heavy.json]
With `--engine tantivy` the index is built by the tantivy engine and the raw-engine
floors are tantivy's (the same compiled query, top 200, in the app's index; raw inserts
of the same documents with one commit at the end).
(`--messages 20000` runs in seconds; the test suite runs it small to keep it working.)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.fts5_query import compile_match
from chat_recall.adapters.sqlite_host.database import SqliteDatabase
from chat_recall.adapters.sqlite_host.engines import Engine, tantivy_directory
from chat_recall.adapters.sqlite_host.message_repo import SqliteMessageRepo
from chat_recall.adapters.sqlite_host.migrations import APPS, FTS_TOKENIZER, fts_table_name
from chat_recall.adapters.tantivy.heap import release_free_memory
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.planning import PlanningSettings
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.domain.indexing import BatchSizing, build_document
from chat_recall.domain.model import IndexDocument, SourceRow
from chat_recall.domain.projection import DEFAULT_POLICY, project_for_search
from chat_recall.domain.query import MatchQuery
from chat_recall.domain.search.query_builder import build_query
from tests.benchmarks.fixture import PROFILES, generate
from tests.benchmarks.lock_probe import LockProbe, culprits

try:  # the `mcp` extra: without it the MCP timing is left out
    from tests.benchmarks.mcp_timing import through_mcp
except ImportError:  # pragma: no cover - the test extras include it
    through_mcp = None  # type: ignore[assignment]

# Query text per class and profile; None is a planted rare term from the manifest.
QUERY_CLASSES: dict[str, dict[str, str | None]] = {
    "standard": {
        "rare term": None,
        "common word": "component",
        "multi-word": "session token cache",
        "phrase": "login form",
        "file name": "session.ts",
        "japanese word": "認証",
        "stopword question": "what did we decide about the login form for the app",
    },
    "heavy": {  # the classes of issue 16
        "rare term": None,
        "common word": "component",
        "three common words": "session token cache",
        "can you fix": "can you fix",
        "file name": "login.ts",
        "japanese word": "認証",
        "stopword question": "what did we decide about the login form for the app",
    },
}
PROJECTION_SAMPLE = 20_000  # messages spread over the whole fixture
RAW_INSERT_BATCH = BatchSizing().maximum  # the indexer's largest batch
RSS_SAMPLES = 10


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1e3  # kB
    return 0.0


def current_rss_mb() -> float:
    """The process's own memory (anonymous resident pages: heaps, buffers, writers'
    arenas). Pages of index files that an engine maps (tantivy's segments, SQLite's
    mmap) are the operating system's cache, reclaimable, and reported apart."""
    return _status_mb("RssAnon")


def mapped_file_rss_mb() -> float:
    return _status_mb("RssFile")


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


def sample_ids(path: Path, sample: int) -> list[int]:
    """Message ids spread evenly over the whole fixture (every app, old and new)."""
    connection = sqlite3.connect(path)
    ids = [row[0] for row in connection.execute("SELECT id FROM messages ORDER BY id")]
    connection.close()
    step = max(1, len(ids) // sample)
    return ids[::step][:sample]


def projection_throughput(recall: ChatRecall, path: Path, sample: int) -> dict[str, Any]:
    """The projection alone (domain, no storage) over a sample of source rows: the text
    search indexes (`project_for_search`) and the whole document (`build_document`,
    which adds index text for CJK segmentation)."""
    repo: SqliteMessageRepo = recall.repo  # type: ignore[assignment]
    ids = sample_ids(path, sample)
    rows: list[SourceRow] = []
    for start in range(0, len(ids), 256):
        rows.extend(repo.source_rows(ids[start : start + 256]))
    content_bytes = sum(len(row.message.content.encode("utf-8")) for row in rows)
    started, cpu_started = time.perf_counter(), time.process_time()
    for row in rows:
        project_for_search(row.message.text, DEFAULT_POLICY)
    projection = time.perf_counter() - started
    projection_cpu = time.process_time() - cpu_started
    started, cpu_started = time.perf_counter(), time.process_time()
    documents = [build_document(row, DEFAULT_POLICY) for row in rows]
    build = time.perf_counter() - started
    build_cpu = time.process_time() - cpu_started
    kept = [document for document in documents if document is not None]
    return {
        "messages": len(rows),
        "content_mb": round(content_bytes / 1e6, 1),
        "projected_mb": round(sum(len(d.body.encode("utf-8")) for d in kept) / 1e6, 2),
        "projection_messages_per_second": round(len(rows) / projection),
        "projection_mb_per_second": round(content_bytes / 1e6 / projection, 1),
        "build_document_messages_per_second": round(len(rows) / build),
        "build_document_mb_per_second": round(content_bytes / 1e6 / build, 1),
        # CPU time: what the projection costs on a machine that others share too.
        "projection_cpu_messages_per_second": round(len(rows) / max(projection_cpu, 1e-9)),
        "build_document_cpu_messages_per_second": round(len(rows) / max(build_cpu, 1e-9)),
        "_documents": kept,
    }


def raw_fts5_insert(directory: Path, documents: list[IndexDocument]) -> dict[str, Any]:
    """The same documents inserted straight into one FTS5 table with the index's
    tokenizer, in transactions of the indexer's largest batch (WAL, default sync): the
    engine's own insert speed on this data, the floor for backfill."""
    path = directory / "raw-insert.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute(
        f"CREATE VIRTUAL TABLE f USING fts5(title, body, chat_ref, tokenize = '{FTS_TOKENIZER}')"
    )
    rows = [(d.message_id, d.title, d.body, f"c{d.chat_id}") for d in documents]
    started, cpu_started = time.perf_counter(), time.process_time()
    for start in range(0, len(rows), RAW_INSERT_BATCH):
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(
            "INSERT INTO f(rowid, title, body, chat_ref) VALUES (?, ?, ?, ?)",
            rows[start : start + RAW_INSERT_BATCH],
        )
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    connection.close()
    for leftover in directory.glob("raw-insert.db*"):
        leftover.unlink()
    return {
        "messages": len(rows),
        "messages_per_second": round(len(rows) / elapsed) if rows else None,
        "cpu_messages_per_second": round(len(rows) / max(cpu, 1e-9)) if rows else None,
    }


def raw_fts5_build(recall: ChatRecall, directory: Path, path: Path) -> dict[str, Any]:
    """Every document of the fixture inserted straight into FTS5, one table per app as
    the index has them, in id order as the backfill goes, in transactions of the
    indexer's largest batch, with FTS5's own merging (automerge): what building this
    whole index costs the engine alone. The raw insert above takes a sample into one
    empty table; at a million messages the tables are larger and each insert merges
    more. Only the inserts are timed (the documents are built chunk by chunk first)."""
    repo: SqliteMessageRepo = recall.repo  # type: ignore[assignment]
    connection = sqlite3.connect(path)
    ids = [row[0] for row in connection.execute("SELECT id FROM messages ORDER BY id")]
    connection.close()
    raw_path = directory / "raw-build.db"
    raw = sqlite3.connect(raw_path, isolation_level=None)
    raw.execute("PRAGMA journal_mode = WAL")
    tables: set[int] = set()
    elapsed = cpu = 0.0
    inserted = 0
    for chunk in range(0, len(ids), 4096):
        rows: list[SourceRow] = []
        for start in range(chunk, min(chunk + 4096, len(ids)), 256):
            rows.extend(repo.source_rows(ids[start : start + 256]))
        built = (build_document(row, DEFAULT_POLICY) for row in rows)
        documents = [document for document in built if document is not None]
        started, cpu_started = time.perf_counter(), time.process_time()
        for start in range(0, len(documents), RAW_INSERT_BATCH):
            by_app: dict[int, list[tuple[int, str, str, str]]] = {}
            for d in documents[start : start + RAW_INSERT_BATCH]:
                by_app.setdefault(d.app_id, []).append(
                    (d.message_id, d.title, d.body, f"c{d.chat_id}")
                )
            raw.execute("BEGIN IMMEDIATE")
            for app_id, app_rows in by_app.items():
                if app_id not in tables:
                    raw.execute(
                        f"CREATE VIRTUAL TABLE f{app_id} USING fts5(title, body, chat_ref, "
                        f"tokenize = '{FTS_TOKENIZER}')"
                    )
                    tables.add(app_id)
                raw.executemany(
                    f"INSERT INTO f{app_id}(rowid, title, body, chat_ref) VALUES (?, ?, ?, ?)",
                    app_rows,
                )
            raw.execute("COMMIT")
        elapsed += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        inserted += len(documents)
    raw.close()
    for leftover in directory.glob("raw-build.db*"):
        leftover.unlink()
    return {
        "messages": inserted,
        "messages_per_second": round(inserted / elapsed) if inserted else None,
        "cpu_messages_per_second": round(inserted / max(cpu, 1e-9)) if inserted else None,
    }


def raw_tantivy_insert(directory: Path, documents: list[IndexDocument]) -> dict[str, Any]:
    """The same documents (terms as the tantivy engine makes them) added straight to one
    tantivy index and committed once: the engine's own insert speed, its backfill floor."""
    import tantivy

    from chat_recall.adapters.tantivy.engine import SCHEMA, to_tantivy
    from chat_recall.domain.text.analysis import TextAnalysis

    path = directory / "raw-tantivy"
    path.mkdir()
    index = tantivy.Index(SCHEMA, path=str(path))
    writer = index.writer(16_000_000, 1)
    analysis = TextAnalysis.default()
    started, cpu_started = time.perf_counter(), time.process_time()
    for document in documents:
        writer.add_document(to_tantivy(document, analysis))
    writer.commit()
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    del writer, index
    shutil.rmtree(path, ignore_errors=True)
    return {
        "messages": len(documents),
        "messages_per_second": round(len(documents) / elapsed) if documents else None,
        "cpu_messages_per_second": round(len(documents) / max(cpu, 1e-9)) if documents else None,
    }


def backfill(recall: ChatRecall, total: int) -> dict[str, Any]:
    slow_before = len(recall.write_lock.slow)
    started = time.perf_counter()
    projection = storage = merging = longest = longest_merge = 0.0
    indexed = batches = over_time = 0
    # What the steps before left free (the projection sample, the raw inserts) goes back
    # first, so that the samples show the backfill's own growth.
    gc.collect()
    release_free_memory()
    rss_samples = [round(current_rss_mb(), 1)]
    next_sample = 1 / RSS_SAMPLES
    while True:
        report = recall.indexer.run_batch()
        batches += 1
        over_time += report.over_time_limit
        indexed += report.indexed + report.deleted
        # planning: in this process, or in a planning process while the previous batch
        # was written (then not part of duration_seconds)
        projection += report.projection_seconds + report.planned_ahead_seconds
        storage += report.duration_seconds - report.projection_seconds
        longest = max(longest, report.duration_seconds)
        longest_merge = max(longest_merge, report.maintenance_seconds)
        merging += report.maintenance_seconds
        if indexed >= next_sample * total:
            rss_samples.append(round(current_rss_mb(), 1))
            next_sample += 1 / RSS_SAMPLES
        if not report.did_work and recall.dirty.backlog().is_empty:
            break
    elapsed = time.perf_counter() - started
    # The write transactions of the backfill over 5 ms (what a host writer may wait for).
    slow = recall.write_lock.slow[slow_before:]
    held = [seconds for _, seconds, _, _ in slow]
    longest_commit = max(slow, key=lambda entry: entry[1])[2] if slow else 0.0
    return {
        "messages": indexed,
        "seconds": round(elapsed, 2),
        "messages_per_second": round(indexed / elapsed),
        "projection_messages_per_second": round(indexed / projection) if projection else None,
        "storage_messages_per_second": round(indexed / storage) if storage else None,
        "projection_share": round(projection / elapsed, 2),
        "maintenance_share": round(merging / elapsed, 2),
        "batches": batches,
        "longest_batch_ms": round(longest * 1000, 1),
        "longest_maintenance_step_ms": round(longest_merge * 1000, 1),
        "maintenance_seconds": round(merging, 2),
        "longest_write_transaction_ms": round(max(held, default=0.0) * 1000, 1),
        "longest_write_transaction_commit_ms": round(longest_commit * 1000, 1),
        "write_transactions_over_25_ms": sum(seconds > 0.025 for seconds in held),
        # batches whose transaction outlived its limit, rolled back and written in parts
        "batches_over_time_limit": over_time,
        "rss_mb_every_10_percent": rss_samples,
        # the spread, not last minus first: freed memory returned mid-run (the tantivy
        # engine's trim) would hide growth after it
        "rss_growth_mb": round(max(rss_samples) - min(rss_samples), 1),
        "mapped_file_rss_mb_at_end": round(mapped_file_rss_mb(), 1),
    }


def fts5_segments(path: Path) -> dict[str, int] | None:
    """FTS5 segments per app table (distinct segment ids in its `_idx` shadow table), the
    most first: what incremental merging keeps in check. None without FTS5 tables."""
    connection = sqlite3.connect(path)
    try:
        tables = [row[0] for row in connection.execute(f"SELECT fts_table FROM {APPS}")]
        counts = {
            table: connection.execute(
                f'SELECT count(DISTINCT segid) FROM "{table}_idx"'
            ).fetchone()[0]
            for table in tables
        }
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    ordered = sorted(counts.items(), key=lambda item: -item[1])
    return {"total": sum(counts.values()), "most": ordered[0][1] if ordered else 0}


def index_size(path: Path) -> dict[str, Any]:
    """Bytes on disk by object (SQLite's dbstat): chat-recall's objects against the
    host's own tables."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    sizes = dict(
        connection.execute(
            "SELECT name, sum(pgsize) FROM dbstat WHERE aggregate = TRUE GROUP BY name"
        ).fetchall()
    )
    connection.close()
    ours = {name: size for name, size in sizes.items() if name.startswith("chat_recall_")}

    def part(suffix: str) -> int:
        return sum(
            size
            for name, size in ours.items()
            if name.startswith("chat_recall_fts_") and name.endswith(suffix)
        )

    return {
        "index_mb": round(sum(ours.values()) / 1e6, 1),
        "fts_postings_mb": round((part("_data") + part("_idx")) / 1e6, 1),
        "fts_content_mb": round(part("_content") / 1e6, 1),
        "fts_docsize_mb": round(part("_docsize") / 1e6, 1),
        "host_mb": round(sum(s for n, s in sizes.items() if n not in ours) / 1e6, 1),
        "file_mb": round(path.stat().st_size / 1e6, 1),
    }


def tantivy_size(path: Path) -> float:
    directory = tantivy_directory(path)
    return round(sum(f.stat().st_size for f in directory.rglob("*") if f.is_file()) / 1e6, 1)


def _search(recall: ChatRecall, context: CallContext, text: str) -> None:
    recall.search_chats(context, {"query": text})


def _floor(database: SqliteDatabase, table: str, match: str) -> None:
    """One raw FTS5 statement, bm25 top-200 in the app's table: the engine's floor."""
    with database.reading() as connection:
        connection.execute(
            f'SELECT rowid, bm25("{table}", 10.0, 1.0, 0.0) AS s FROM "{table}" '
            f'WHERE "{table}" MATCH ? ORDER BY s, rowid LIMIT 200',
            (match,),
        ).fetchall()


def _count(database: SqliteDatabase, table: str, match: str) -> int:
    with database.reading() as connection:
        found: int = connection.execute(
            f'SELECT count(*) FROM "{table}" WHERE "{table}" MATCH ?', (match,)
        ).fetchone()[0]
    return found


def _summary(timings: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(percentile(timings, 0.95), 2),
    }


def _tantivy_query(recall: ChatRecall, app_id: int, match: MatchQuery) -> Any:
    from chat_recall.adapters.tantivy.query import compile_match as compile_tantivy
    from chat_recall.domain.query import FieldWeights

    index = recall.index.indexes.index(app_id, create=False)  # type: ignore[attr-defined]
    return index, compile_tantivy(match, FieldWeights(), recall.index.analysis)


def _tantivy_floor(recall: ChatRecall, app_id: int, match: MatchQuery) -> None:
    """One raw tantivy search, top 200 by bm25 in the app's index: the engine's floor."""
    index, query = _tantivy_query(recall, app_id, match)
    index.searcher().search(query, 200, count=False)


def _tantivy_count(recall: ChatRecall, app_id: int, match: MatchQuery) -> int:
    index, query = _tantivy_query(recall, app_id, match)
    found: int = index.searcher().search(query, 1, count=True).count
    return found


def search_classes(
    recall: ChatRecall,
    manifest: dict[str, Any],
    classes: dict[str, str | None],
    repeats: int,
    engine: Engine = Engine.SQLITE,
) -> dict[str, Any]:
    """Per class: chat-recall's search_chats, the raw FTS5 statement for the MATCH it
    sends (`floor_sent`), and for the query's words alone, each word one phrase, no
    inflections, no whole-query phrase (`floor_words`); same run, same data."""
    database: SqliteDatabase = recall.index.database  # type: ignore[attr-defined]
    app_id = 1  # the largest app
    table = fts_table_name(app_id)
    rare = [entry for entry in manifest["rare_terms"] if entry["app_id"] == app_id]
    tantivy_floors = engine is Engine.TANTIVY
    results = {}
    for name, query in classes.items():
        text = query or rare[0]["term"]
        plan = build_query(text)
        words_only = MatchQuery(tuple(term.phrase for term in plan.terms))
        if tantivy_floors:
            sent, words = str(plan.match.phrases), str(words_only.phrases)
            floor = partial(_tantivy_floor, recall, app_id)
            count = partial(_tantivy_count, recall, app_id)
            sent_query, words_query = plan.match, words_only
        else:
            sent = compile_match(plan.match, None, recall.index.analysis)
            words = compile_match(words_only, None, recall.index.analysis)
            floor = partial(_floor, database, table)
            count = partial(_count, database, table)
            sent_query, words_query = sent, words  # type: ignore[assignment]
        product = timed(partial(_search, recall, CallContext(app_id), text), repeats)
        floor_sent = timed(partial(floor, sent_query), repeats)
        floor_words = timed(partial(floor, words_query), repeats)
        results[name] = {
            "query": text,
            "match_sent": sent,
            "match_words": words,
            "matches_sent": count(sent_query),
            "matches_words": count(words_query),
            "search_chats": _summary(product),
            "floor_sent": _summary(floor_sent),
            "floor_words": _summary(floor_words),
            "overhead_ratio_p50": round(
                statistics.median(product) / max(statistics.median(floor_sent), 1e-6), 2
            ),
        }
    return results


def reads(recall: ChatRecall, path: Path, repeats: int) -> dict[str, Any]:
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


def run(
    messages: int,
    out: Path | None,
    repeats: int = 30,
    profile: str = "standard",
    engine: Engine = Engine.SQLITE,
    planning: PlanningSettings | None = None,
) -> dict[str, Any]:
    directory = Path(tempfile.mkdtemp(prefix="chat-recall-bench-"))
    path = directory / "fixture.db"
    try:
        return _run(directory, path, messages, out, repeats, profile, engine, planning)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _run(
    directory: Path,
    path: Path,
    messages: int,
    out: Path | None,
    repeats: int,
    profile: str,
    engine: Engine,
    planning: PlanningSettings | None = None,
) -> dict[str, Any]:
    started = time.perf_counter()
    manifest = generate(path, messages=messages, profile=profile)
    generation = time.perf_counter() - started
    # The fixture's gigabytes were written seconds ago: the kernel writes them out
    # first, or its writeback of them stalls our COMMITs' writes meanwhile (a host's
    # database was not written just before its backfill).
    started = time.perf_counter()
    os.sync()
    synced = time.perf_counter() - started
    connection = sqlite3.connect(path)
    content_bytes = connection.execute(
        "SELECT sum(length(CAST(content AS BLOB))) FROM messages"
    ).fetchone()[0]
    connection.close()
    settings = IndexerSettings(planning=planning or PlanningSettings())
    # The install's transactions are host-visible too: the same probe watches them.
    with LockProbe(path) as install_probe:
        started = time.perf_counter()
        recall = bootstrap.sqlite(path, engine=engine, settings=settings)
        install = time.perf_counter() - started
    install_probe.result.pop("_long_spans", None)
    install_lock = recall.write_lock
    results: dict[str, Any] = {
        "profile": profile,
        "engine": engine.value,
        "fixture": {
            "messages": manifest["messages"],
            "chats": manifest["chats"],
            "apps": manifest["apps"],
            "largest_app_messages": max(manifest["per_app"]),
            "content_mb": round(content_bytes / 1e6, 1),
            "average_message_kb": round(content_bytes / manifest["messages"] / 1e3, 2),
            "generation_seconds": round(generation, 1),
            "sync_seconds": round(synced, 1),
        },
        "install_seconds": round(install, 2),
        "install": {
            "write_transactions": install_lock.transactions,
            "longest_write_transaction_ms": round(install_lock.longest_seconds * 1000, 1),
            "longest_in": install_lock.longest_in,
            "write_transactions_over_25_ms": install_lock.over[0],
            "write_lock_probe": install_probe.result,
        },
        "planning_processes": settings.planning.processes,
    }
    projection = projection_throughput(recall, path, min(PROJECTION_SAMPLE, messages))
    documents = projection.pop("_documents")
    results["projection"] = projection
    results["raw_fts5_insert"] = raw_fts5_insert(directory, documents)
    if engine is Engine.TANTIVY:
        results["raw_tantivy_insert"] = raw_tantivy_insert(directory, documents)
    del documents
    slow_before = len(recall.write_lock.slow)
    with LockProbe(path) as probe:
        backfill_began = time.perf_counter()
        results["backfill"] = backfill(recall, manifest["messages"])
    long_spans = probe.result.pop("_long_spans", [])
    probe.result["long_spans"] = culprits(
        long_spans,
        recall.write_lock.slow[slow_before:],
        since=backfill_began,
        commits=recall.write_lock.slow_commits,
    )
    # COMMITs over 10 ms: how many, and how many of them spent under half their time on
    # this thread's CPU (waiting for the disk or descheduled, not working)
    commits = [c for c in recall.write_lock.slow_commits if c[0] >= backfill_began]
    results["backfill"]["slow_commits"] = {
        "over_10_ms": len(commits),
        "mostly_waiting": sum(cpu < seconds / 2 for _, seconds, cpu, _, _ in commits),
        "preempted": sum(preempted > 0 for *_, preempted, _ in commits),
        "longest_ms": round(max((c[1] for c in commits), default=0.0) * 1000, 1),
    }
    results["backfill"]["write_lock_probe"] = probe.result
    # The figure: the install and the backfill, from nothing to searchable.
    results["install_and_backfill_messages_per_second"] = round(
        results["backfill"]["messages"] / (install + results["backfill"]["seconds"])
    )
    results["backfill"]["fts5_segments"] = fts5_segments(path)
    raw_rate = results.get("raw_tantivy_insert", results["raw_fts5_insert"])["messages_per_second"]
    # against the engine's own raw insert: tantivy's when the index is in tantivy
    results["backfill"]["ratio_to_raw_insert"] = (
        round(results["backfill"]["messages_per_second"] / raw_rate, 2) if raw_rate else None
    )
    results["backfill"]["raw_insert_engine"] = "tantivy" if engine is Engine.TANTIVY else "FTS5"
    results["search"] = search_classes(recall, manifest, QUERY_CLASSES[profile], repeats, engine)
    results["read_chat"] = reads(recall, path, repeats * 5)
    results["correctness"] = correctness(recall, manifest)
    # After the timed searches (its writes would disturb them), then written out before
    # the searches through MCP.
    results["raw_fts5_build"] = raw_fts5_build(recall, directory, path)
    os.sync()
    build_rate = results["raw_fts5_build"]["messages_per_second"]
    results["backfill"]["ratio_to_raw_build"] = (
        round(results["backfill"]["messages_per_second"] / build_rate, 2) if build_rate else None
    )
    recall.close()
    if through_mcp is not None:
        queries = {name: row["query"] for name, row in results["search"].items()}
        results["search_through_mcp"] = through_mcp(path, 1, queries, repeats)
    results["size"] = index_size(path)
    if engine is Engine.TANTIVY:
        results["size"]["tantivy_mb"] = tantivy_size(path)
    results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, 1)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return results


def print_table(results: dict[str, Any]) -> None:
    fixture, backfill_ = results["fixture"], results["backfill"]
    probe = backfill_.get("write_lock_probe", {})
    projection, raw = results["projection"], results["raw_fts5_insert"]
    print(
        f"profile {results['profile']}: {fixture['messages']:,} messages, "
        f"{fixture['chats']:,} chats, {fixture['apps']} apps "
        f"(largest {fixture['largest_app_messages']:,}), {fixture['content_mb']:,} MB of "
        f"content ({fixture['average_message_kb']} KB/message), generated in "
        f"{fixture['generation_seconds']}s; install {results['install_seconds']}s"
    )
    if "install" in results:
        install, install_probe = results["install"], results["install"]["write_lock_probe"]
        print(
            f"install: {install['write_transactions']} write transactions, longest "
            f"{install['longest_write_transaction_ms']} ms (in {install['longest_in']}), "
            f"{install['write_transactions_over_25_ms']} over 25 ms; write lock seen taken by "
            f"a probe: longest {install_probe.get('longest_busy_ms')} ms, "
            f"{install_probe.get('busy_spans_over_25_ms')} over 25 ms; install and backfill "
            f"together {results['install_and_backfill_messages_per_second']:,} msg/s"
        )
    print(
        f"projection alone ({projection['messages']:,} sampled messages, "
        f"{projection['content_mb']} MB): {projection['projection_messages_per_second']:,} "
        f"msg/s, {projection['projection_mb_per_second']} MB/s; with index text "
        f"{projection['build_document_messages_per_second']:,} msg/s (CPU time: "
        f"{projection['projection_cpu_messages_per_second']:,} / "
        f"{projection['build_document_cpu_messages_per_second']:,} msg/s); raw FTS5 insert "
        f"of the same documents {raw['messages_per_second']:,} msg/s (CPU time: "
        f"{raw['cpu_messages_per_second']:,} msg/s)"
    )
    if "raw_fts5_build" in results:
        build = results["raw_fts5_build"]
        print(
            f"every document into FTS5 alone (per-app tables, id order, "
            f"{RAW_INSERT_BATCH} a transaction, FTS5's own merging): "
            f"{build['messages_per_second']:,} msg/s (CPU time: "
            f"{build['cpu_messages_per_second']:,} msg/s)"
        )
    print(
        f"backfill ({results.get('planning_processes', 0)} planning processes): "
        f"{backfill_['messages_per_second']:,} msg/s overall "
        f"({backfill_['ratio_to_raw_insert']}x raw {backfill_['raw_insert_engine']} insert, "
        f"{backfill_.get('ratio_to_raw_build')}x building every document in FTS5 alone; "
        f"in-batch projection "
        f"{backfill_['projection_messages_per_second']:,}/s, storage "
        f"{backfill_['storage_messages_per_second']:,}/s; projection "
        f"{backfill_['projection_share']:.0%} and maintenance steps "
        f"{backfill_['maintenance_share']:.0%} "
        f"of the time), longest batch {backfill_['longest_batch_ms']} ms "
        f"(maintenance step {backfill_['longest_maintenance_step_ms']} ms); longest write "
        f"transaction {backfill_['longest_write_transaction_ms']} ms (of it COMMIT "
        f"{backfill_['longest_write_transaction_commit_ms']} ms), "
        f"{backfill_['write_transactions_over_25_ms']} over 25 ms (COMMIT included: SQLite "
        f"checkpoints in it after releasing the lock; "
        f"{backfill_.get('batches_over_time_limit', 0)} batches over the time limit, rolled "
        f"back and written in parts); write lock seen taken by a probe: "
        f"longest {probe.get('longest_busy_ms')} ms, {probe.get('busy_spans_over_25_ms')} "
        f"over 25 ms (first to last failed try: {probe.get('longest_surely_busy_ms')} ms, "
        f"{probe.get('surely_busy_over_25_ms')}; watched throughout, no pause between tries "
        f"over 5 ms: {probe.get('watched_busy_over_25_ms')}); FTS5 segments after it "
        f"{backfill_.get('fts5_segments')}; COMMITs over 10 ms: {backfill_.get('slow_commits')}"
    )
    if probe.get("long_spans"):
        met = Counter(
            "+".join(sorted({t["function"] for t in span["transactions"]})) or "none recorded"
            for span in probe["long_spans"]
        )
        print(f"write lock held over 25 ms, by the transactions it met: {dict(met)}")
        pauses = sorted(span["widest_pause_ms"] for span in probe["long_spans"])
        print(f"  the probe's widest pause between tries in those spans, ms: {pauses}")
    print(
        f"RSS during backfill (anonymous), every 10%: {backfill_['rss_mb_every_10_percent']}"
        f" MB (growth {backfill_['rss_growth_mb']} MB); mapped index files resident at the"
        f" end {backfill_['mapped_file_rss_mb_at_end']} MB"
    )
    print(
        f"{'search class':20} {'matches':>15} {'search_chats p50/p95':>21} "
        f"{'floor sent p50/p95':>19} {'floor words p50/p95':>20}"
    )
    for name, row in results["search"].items():
        product, sent, words = row["search_chats"], row["floor_sent"], row["floor_words"]
        matches = f"{row['matches_sent']}/{row['matches_words']}"
        print(
            f"{name:20} {matches:>15} {product['p50_ms']:>10} {product['p95_ms']:>10} "
            f"{sent['p50_ms']:>9} {sent['p95_ms']:>9} {words['p50_ms']:>10} {words['p95_ms']:>9}"
        )
    if "search_through_mcp" in results:
        print(
            "through a persistent `chat-recall mcp` process (the MCP SDK's stdio client): "
            "p50 / p95 / p95 net of the no-index call's median round trip, ms"
        )
        for name, row in results["search_through_mcp"].items():
            print(f"  {name:22} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['p95_net_ms']:>8}")
    read = results["read_chat"]
    print(
        f"read_chat in a {read['chat_messages']}-message chat: around median "
        f"{read['around_median_ms']} ms p95 {read['around_p95_ms']} ms; page median "
        f"{read['page_median_ms']} ms p95 {read['page_p95_ms']} ms"
    )
    size = results["size"]
    print(
        f"on disk: index {size['index_mb']} MB (FTS postings {size['fts_postings_mb']}, "
        f"FTS content {size['fts_content_mb']}, docsize {size['fts_docsize_mb']}), host "
        f"tables {size['host_mb']} MB, file {size['file_mb']} MB; peak RSS "
        f"{results['peak_rss_mb']} MB"
    )
    if "tantivy_mb" in size:
        tantivy_raw = results["raw_tantivy_insert"]
        print(
            f"tantivy engine: indexes beside the database {size['tantivy_mb']} MB; raw "
            f"tantivy insert of the same documents {tantivy_raw['messages_per_second']:,} "
            f"msg/s (CPU time {tantivy_raw['cpu_messages_per_second']:,}); the floors above "
            "are tantivy's"
        )
    print(f"correctness: {results['correctness']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="standard")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument(
        "--engine",
        choices=[*(engine.value for engine in Engine), "postgres"],
        default="sqlite",
        help="tantivy: the tantivy engine beside the SQLite database; postgres: the same "
        "fixture copied into PostgreSQL (tests/benchmarks/scale_postgres)",
    )
    parser.add_argument(
        "--planning-processes",
        type=int,
        default=None,
        help="processes that plan backfill batches ahead (0: plan in the indexer's own "
        "process; default: as `chat-recall index` plans, PlanningSettings.for_own_process)",
    )
    parser.add_argument(
        "--dsn", default=None, help="postgres: a server to use (default: start a throwaway one)"
    )
    parser.add_argument(
        "--host-messages",
        type=int,
        default=100_000,
        help="postgres: messages in the two copies the host-write cost is measured on",
    )
    arguments = parser.parse_args()
    if arguments.engine == "postgres":
        from tests.benchmarks import scale_postgres

        out = arguments.out or Path(f"bench-results/scale-{arguments.profile}-postgres.json")
        results = scale_postgres.run(
            arguments.messages,
            arguments.repeats,
            arguments.profile,
            arguments.dsn,
            arguments.host_messages,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2, ensure_ascii=False))
        scale_postgres.print_table(results)
        return
    engine = Engine(arguments.engine)
    suffix = "" if engine is Engine.SQLITE else f"-{engine.value}"
    out = arguments.out or Path(f"bench-results/scale-{arguments.profile}{suffix}.json")
    planning = (
        PlanningSettings.for_own_process()
        if arguments.planning_processes is None
        else PlanningSettings(processes=arguments.planning_processes)
    )
    print_table(
        run(arguments.messages, out, arguments.repeats, arguments.profile, engine, planning)
    )


if __name__ == "__main__":
    sys.exit(main())
