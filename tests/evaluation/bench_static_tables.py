"""EXPERIMENT (issue 36): embedding speed of static tables on one thread, A/B alternately.

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 \
     python -m tests.evaluation.bench_static_tables DIR [DIR ...] [--messages N] [--rounds R]

Texts: the heavy fixture's writer (short user messages, payload-heavy assistant ones),
alternating. Each round embeds all texts with the packaged WordLlama table, then with
each named table directory, so the machine's drift falls on all alike.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from chat_recall.adapters.embedding.static import StaticEmbedder
from chat_recall.domain.semantic import Purpose
from tests.benchmarks.fixture import HeavyWriter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tables", nargs="+", type=Path)
    parser.add_argument("--messages", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    writer = HeavyWriter(7)
    texts = [
        writer.user_message() if i % 2 == 0 else writer.assistant_message(None)
        for i in range(arguments.messages)
    ]
    embedders = {"wordllama": StaticEmbedder.wordllama()}
    for table in arguments.tables:
        embedders[table.name] = StaticEmbedder.from_directory(table)
    rates: dict[str, list[float]] = {name: [] for name in embedders}
    for _ in range(arguments.rounds):
        for name, embedder in embedders.items():
            began = time.perf_counter()
            embedder.embed(texts, Purpose.DOCUMENT)
            rates[name].append(len(texts) / (time.perf_counter() - began))
    for name, values in rates.items():
        print(
            f"{name}: median {statistics.median(values):,.0f} msg/s "
            f"(rounds: {', '.join(f'{v:,.0f}' for v in values)})"
        )


if __name__ == "__main__":
    main()
