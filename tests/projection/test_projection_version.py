"""Any change of projection output fails here until PROJECTION_VERSION is bumped.

When this fails on purpose: bump PROJECTION_VERSION (the derived index then rebuilds in
the background) and pin the new digest printed by the assertion.
"""

from __future__ import annotations

import hashlib
import json

from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import (
    DEFAULT_RULES,
    PROJECTION_VERSION,
    project_for_read,
    project_for_search,
)
from tests.redaction.samples import positives

PINNED_DIGESTS = {
    1: "65f39b26f0f9a67168b2e1b7332a7b100ef821d9b78d751ce590f03d388bb0b1",
    2: "0ebf589f578649ffb54fccb0e6c3ab1e7ab197cfc12b7a1a2d9fdfd356d37380",
    3: "579ec2c2927e0f32abac844f6285bc74b5bdb4472d27a9b9e2def68d86ad7284",
    4: "7d5ac8cd7a7207d23eace838ab9684b7d8f2b1f7bcd8eb410242b3d050786786",
    5: "6de87700a253d0d71b960ab80e2e60733df2ced65c2e30e72fb9ded8b8fab142",
}


def fixture_messages() -> list[MessageText]:
    messages = [
        MessageText.user('Literal <dyad-write path="x">kept</dyad-write> and  spaces\n\nhere'),
        MessageText.assistant("Plain prose with ünïcödé, 日本語 and a path src/app/page.tsx."),
        MessageText.assistant(
            '<dyad-compaction title="Earlier" state="finished">We chose Postgres.</dyad-compaction>'
            " Continuing.",
            is_compaction_summary=True,
        ),
        MessageText.assistant('Cut <dyad-write path="src/a.ts'),
        MessageText.assistant("<think>hidden</think><thinking>also hidden</thinking>"),
        MessageText.assistant("x" * 40_000 + " end"),
        # Version 2: credentials become typed placeholders.
        MessageText.user("\n".join(sample.text for sample in positives())),
        MessageText.assistant(
            "\n".join(sample.text for sample in positives()[::3])
            + '<dyad-write path="src/env.ts" description="set DB_PASSWORD=hunter2x9">'
            "body</dyad-write>"
        ),
        # Scanner edge cases: angle brackets that start no tag, stray and cut closers,
        # self-closing tags, `>` inside quoted values, an unterminated value, deep keep
        # nesting, unknown names of the host's markup, controls and a lone surrogate.
        MessageText.assistant(
            "if a < b && c<d { return <div className='x'><Button/></div>; } </span> <thin>"
            ' stray </dyad-write> and </dyad-write cut <dyad-delete path="a.ts" /> '
            '<dyad-enable-nitro/> <dyad-write path="a>b.ts" description="x > y">body'
            '</dyad-write> <dyad-future-x title="T" path="p" other="o">secret</dyad-future-x>'
            " <Think>hidden</Think> ctrl\x01\x7f and \ud800 lone"
        ),
        MessageText.assistant(
            "".join(f'<dyad-status title="level {n}">s{n} ' for n in range(7))
            + "deep"
            + "".join(f" e{n}</dyad-status>" for n in range(7))
        ),
        MessageText.assistant('Before <dyad-write path="a.ts>body never closed'),
        MessageText.assistant('Open keep <dyad-status title="Build">still running <think>x'),
        MessageText.user("ctrl\x01 <think>user text is kept</think> \ud800"),
        # Version 3: an invisible character inside a credential does not hide it.
        MessageText.user("key AKIAZ7Q3M4\u200bXK2PLW9RTB and \u200b 日\u200d本 e\u00adxample"),
        # Version 4: a credential typed in fullwidth forms is the same credential.
        MessageText.user(
            "key: \uff53\uff4b-proj-\uff21\uff22\uff23 \uff11\uff12\uff13 and \uff08note\uff09"
        ),
        # and control characters are not returned by read_chat either.
        MessageText.assistant("\x1b[2J\x1b]0;title\x07 red \x9b31m text\x00"),
        MessageText.assistant(
            "".join(
                f'prose {n} <think>t</think><dyad-read path="f{n}.ts"></dyad-read>\n'
                for n in range(3000)
            )
        ),
        # Version 5: text is kept as written (lines, indentation, tabs), blocks on lines
        # of their own.
        MessageText.assistant(
            "Fixed:\r\n```python\ndef f(x):  \n    return x\n```\n\n\n\nbuild:\n\tmake   all\n"
            '- a\n  - b <dyad-write path="a.py">code</dyad-write> then\t<think>t</think>  done'
        ),
        MessageText.user("  indented\n\n\n\tand tabbed  \n"),
    ]
    attributes = (
        'path="src/p.ts" description="d &amp; e" title="T" summary="S" notes="N" '
        'query="q" from="a" to="b" packages="zod" type="error" message="M" level="high" '
        'server="srv" tool="tl" table="users" provider="neon" count="2" steps="5" limit="10" '
        'app-name="App" template="react" files="a.ts" directory="src" operation="diff"'
    )
    for name in sorted(DEFAULT_RULES):
        body = '<qa question="Q?" type="text">A</qa>' if "questionnaire" in name else "body\nline"
        if name in {"dyad-web-fetch", "dyad-web-crawl"}:
            body = "https://example.com/page"
        messages.append(MessageText.assistant(f"Before <{name} {attributes}>{body}</{name}> after"))
    return messages


def projection_digest() -> str:
    rows = []
    for message in fixture_messages():
        for projection in (project_for_search(message), project_for_read(message)):
            rows.append([projection.text, projection.truncated])
    encoded = json.dumps(rows, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def test_projection_output_is_pinned_to_its_version() -> None:
    digest = projection_digest()
    assert PINNED_DIGESTS.get(PROJECTION_VERSION) == digest, (
        f"projection output changed: bump PROJECTION_VERSION and pin {digest!r}"
    )
