"""A deterministic, realistic large chat history in the reference host schema.

`generate(path, messages=..., apps=..., seed=...)` writes chats and messages straight
into SQLite (fast executemany) and returns a manifest: planted rare terms in the oldest
messages (must be found), terms planted only inside dropped bodies (must never be
found), and per-app counts. Content: user questions of realistic lengths; assistant
prose mixed with markup of every policy class, including large payloads (files of
hundreds of lines, SQL, logs, diffs) and thinking blocks; compaction summaries stored
one second before their triggering user message; German, French, Russian and Japanese
text; file paths; a Zipf-like vocabulary so common words are very common.
"""

from __future__ import annotations

import itertools
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from chat_recall.adapters.sqlite.schema import REFERENCE_HOST_DDL

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "tor",
    "vek",
    "sa",
    "ri",
    "dun",
    "pel",
    "qua",
    "zin",
    "bra",
    "fo",
    "gu",
    "hex",
    "jo",
    "ly",
    "mor",
    "pix",
]
COMMON = (
    "the app user page data error fix button component api test deploy login form "
    "settings database style layout update change build state route server client "
    "cache session token query schema table field value list item view modal"
).split()
MULTILINGUAL = [
    "Die Übersetzung der Oberfläche ist fertig und geprüft.",
    "Le café préféré de l'élève est servi à midi.",
    "Пользователь не может войти в систему после обновления.",
    "ユーザー認証の方式を決めた。セッションを使います。",
]
PATHS = [
    "src/auth/session.ts",
    "src/components/Button.tsx",
    "src/lib/db.ts",
    "app/routes/billing.tsx",
    "server/api/users.ts",
    "src/hooks/useAuth.ts",
]


def vocabulary(size: int, generator: random.Random) -> list[str]:
    words = list(COMMON)
    for combo in itertools.product(SYLLABLES, repeat=3):
        if len(words) >= size:
            break
        words.append("".join(combo))
    return words


class Writer:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.words = vocabulary(6000, self.random)
        weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(self.words))]
        self.cumulative = list(itertools.accumulate(weights))

    def prose(self, low: int, high: int) -> str:
        count = self.random.randint(low, high)
        words = self.random.choices(self.words, cum_weights=self.cumulative, k=count)
        sentences = [" ".join(words[i : i + 12]).capitalize() + "." for i in range(0, count, 12)]
        return " ".join(sentences)

    def payload(self, lines: int) -> str:
        return "\n".join(
            f"  const {self.random.choice(self.words)}{i} = {self.random.randint(0, 999)};"
            for i in range(lines)
        )

    def user_message(self) -> str:
        text = self.prose(6, 60)
        roll = self.random.random()
        if roll < 0.05:
            text += " " + self.random.choice(MULTILINGUAL)
        elif roll < 0.1:
            text += f" See {self.random.choice(PATHS)}."
        return text

    def assistant_message(self, hidden: str | None) -> str:
        parts = [self.prose(10, 80)]
        roll = self.random.random()
        secret = f" {hidden} " if hidden else " "
        if roll < 0.25:
            parts.append(f"<think>{self.prose(20, 120)}{secret}</think>")
        path = self.random.choice(PATHS)
        kind = self.random.random()
        if kind < 0.35:
            parts.append(
                f'<dyad-write path="{path}" description="{self.prose(3, 8)}">\n'
                f"{self.payload(self.random.randint(20, 300))}{secret}\n</dyad-write>"
            )
        elif kind < 0.45:
            parts.append(
                f'<dyad-execute-sql description="migrate">CREATE TABLE t (id int);'
                f"{secret}{self.payload(20)}</dyad-execute-sql>"
            )
        elif kind < 0.52:
            parts.append(
                f'<dyad-read-logs type="server" count="50">{self.payload(50)}{secret}'
                "</dyad-read-logs>"
            )
        elif kind < 0.58:
            parts.append(
                f'<dyad-git operation="diff" path="{path}">--- a\n+++ b\n'
                f"{self.payload(80)}{secret}</dyad-git>"
            )
        elif kind < 0.62:
            parts.append(
                f'<dyad-search-replace path="{path}" description="rename">'
                f"{self.payload(10)}{secret}</dyad-search-replace>"
            )
        elif kind < 0.65:
            parts.append(
                f'<dyad-grep query="{self.random.choice(self.words)}" count="3">'
                f"{self.payload(3)}{secret}</dyad-grep>"
            )
        elif kind < 0.67:
            parts.append(f'<dyad-status title="Build">{self.prose(5, 15)}</dyad-status>')
        if self.random.random() < 0.04:
            parts.append(self.random.choice(MULTILINGUAL))
        parts.append(self.prose(5, 30))
        return "\n".join(parts)


def generate(path: Path, *, messages: int, apps: int = 10, seed: int = 7) -> dict[str, Any]:
    """Write the fixture; the largest app holds about 15-16% of all messages."""
    writer = Writer(seed)
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = OFF")
    shares = [1.6] + [1.0] * (apps - 1)
    total_share = sum(shares)
    per_app = [int(messages * share / total_share) for share in shares]
    per_app[-1] += messages - sum(per_app)
    rare: list[dict[str, Any]] = []
    hidden: list[str] = []
    chat_id = message_id = 0
    clock = 1_600_000_000
    for app_id, count in enumerate(per_app, start=1):
        written = 0
        planted = 0
        while written < count:
            chat_id += 1
            size = min(count - written, writer.random.choice([4, 8, 12, 20, 40, 80, 200]))
            title = writer.prose(2, 5)[:-1]
            connection.execute(
                "INSERT INTO chats(id, app_id, title, created_at) VALUES (?, ?, ?, ?)",
                (chat_id, app_id, title, clock),
            )
            rows = []
            for index in range(size):
                message_id += 1
                clock += 7
                if index % 2 == 0:
                    content = writer.user_message()
                    if planted < 3 and chat_id % 5 == 0:
                        term = f"zq{app_id}rare{planted}x"
                        content += f" The {term} decision."
                        rare.append({"term": term, "app_id": app_id, "message_id": message_id})
                        planted += 1
                    rows.append((message_id, chat_id, "user", content, clock, 0))
                else:
                    term = None
                    if len(hidden) < 40 and writer.random.random() < 0.01:
                        term = f"zqhidden{len(hidden)}y"
                        hidden.append(term)
                    content = writer.assistant_message(term)
                    rows.append((message_id, chat_id, "assistant", content, clock, 0))
                if index == 10:
                    message_id += 1
                    summary = (
                        f'<dyad-compaction title="Summary" state="finished">'
                        f"{writer.prose(30, 80)}</dyad-compaction>"
                    )
                    rows.append((message_id, chat_id, "assistant", summary, clock - 1, 1))
                    written += 1
            connection.executemany(
                "INSERT INTO messages(id, chat_id, role, content, created_at, "
                "is_compaction_summary) VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            written += size
        connection.commit()
    connection.close()
    manifest = {
        "messages": message_id,
        "chats": chat_id,
        "apps": apps,
        "per_app": per_app,
        "rare_terms": rare,
        "hidden_terms": hidden,
        "seed": seed,
    }
    path.with_suffix(".manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest
