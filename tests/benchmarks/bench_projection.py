"""Projection throughput on three 5 MB assistant messages: thousands of small tags; a
few whole files (bulky bodies the scanner must skip); prose full of `<` that starts no
tag (code and JSX outside any tag); and a 5 MB user paste (never scanned for markup: the
credential redaction and the byte cap do all the work).

Run: python tests/benchmarks/bench_projection.py
Prints figures (median and best CPU time of 7 runs); asserts nothing (timing targets
live here, not in the tests). The scale benchmark measures throughput over a whole
fixture (`python -m tests.benchmarks.bench_scale --profile heavy`).
"""

from __future__ import annotations

import statistics
import time

from chat_recall.domain.messages import MessageText, Role
from chat_recall.domain.projection import project_for_read, project_for_search

TARGET_BYTES = 5 * 1024 * 1024


def _repeat(chunk: str, target_bytes: int) -> str:
    return chunk * (target_bytes // len(chunk.encode("utf-8")) + 1)


def build_message(target_bytes: int = TARGET_BYTES) -> str:
    """Tag-dense: about 14,800 tags of every class."""
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
    return _repeat(chunk, target_bytes)


def build_payload_message(target_bytes: int = TARGET_BYTES) -> str:
    """Payload-heavy: three whole files of ~1.7 MB each, JSX included."""
    lines = "".join(
        f'  <div className="row-{n}">{{items[{n}] < limit ? "ok" : "</div>"}}</div>\n'
        for n in range(2000)
    )
    file_body = _repeat(lines, target_bytes // 3)
    return "".join(
        f'Writing part {n}.\n<dyad-write path="src/p{n}.tsx" description="part {n}">\n'
        f"{file_body}</dyad-write>\n"
        for n in range(3)
    )


def build_bracket_prose(target_bytes: int = TARGET_BYTES) -> str:
    """Prose with code outside any tag: every `<` starts no recognised tag."""
    chunk = "Use `a < b` and render <Button onClick={go}/> inside <div> or <span>.\n"
    return _repeat(chunk, target_bytes)


def main() -> None:
    for label, content, role in (
        ("tag-dense", build_message(), Role.ASSISTANT),
        ("payload-heavy", build_payload_message(), Role.ASSISTANT),
        ("bracket prose", build_bracket_prose(), Role.ASSISTANT),
        ("user paste", build_payload_message(), Role.USER),
    ):
        tags = content.count("<dyad-") + content.count("<think>")
        size = len(content.encode("utf-8")) / 1e6
        message = MessageText(role, content)
        for name, project in (("search", project_for_search), ("read", project_for_read)):
            timings = []
            for _ in range(7):
                started = time.process_time()
                projection = project(message)
                timings.append(time.process_time() - started)
            print(
                f"{label:14} {name:6} {size:.1f} MB, {tags:>5} tags: "
                f"median {statistics.median(timings) * 1000:4.0f} ms, "
                f"best {min(timings) * 1000:4.0f} ms ({size / min(timings):5.0f} MB/s), "
                f"output {len(projection.text.encode('utf-8'))} bytes, "
                f"truncated={projection.truncated}"
            )


if __name__ == "__main__":
    main()
