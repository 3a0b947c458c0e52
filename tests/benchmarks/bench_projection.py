"""Projection throughput on a 5 MB assistant message with thousands of tags.

Run: python tests/benchmarks/bench_projection.py
Prints figures; asserts nothing (timing targets live here, not in the tests).
"""

from __future__ import annotations

import statistics
import time

from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import project_for_read, project_for_search


def build_message(target_bytes: int = 5 * 1024 * 1024) -> str:
    chunk = (
        "We refactored the login flow and kept the session cookie.\n"
        "<think>weighing options " + "r" * 400 + "</think>\n"
        '<dyad-write path="src/auth/login.ts" description="add session refresh">\n'
        + "const line = 1;\n"
        * 60
        + "</dyad-write>\n"
        '<dyad-execute-sql description="add index">CREATE INDEX i ON t(c);</dyad-execute-sql>\n'
        '<dyad-grep query="useAuth" count="2">src/a.ts:1 useAuth()\n</dyad-grep>\n'
        '<dyad-status title="Build">ok</dyad-status> stray < and </dyad-edit> closers\n'
    )
    repeats = target_bytes // len(chunk.encode("utf-8")) + 1
    return chunk * repeats


def main() -> None:
    content = build_message()
    tags = content.count("<dyad-") + content.count("<think>")
    message = MessageText.assistant(content)
    for name, project in (("search", project_for_search), ("read", project_for_read)):
        timings = []
        for _ in range(5):
            started = time.perf_counter()
            projection = project(message)
            timings.append(time.perf_counter() - started)
        print(
            f"{name:6} {len(content.encode('utf-8')) / 1e6:.1f} MB, {tags} tags: "
            f"median {statistics.median(timings) * 1000:.0f} ms, "
            f"max {max(timings) * 1000:.0f} ms, "
            f"output {len(projection.text.encode('utf-8'))} bytes, truncated={projection.truncated}"
        )


if __name__ == "__main__":
    main()
