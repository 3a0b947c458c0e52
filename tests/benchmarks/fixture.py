"""A deterministic, realistic large chat history in the reference host schema.

`generate(path, messages=..., apps=..., seed=...)` writes chats and messages straight
into SQLite (fast executemany) and returns a manifest: planted rare terms in the oldest
messages (must be found), terms planted only inside dropped bodies (must never be
found), and per-app counts. Content: user questions of realistic lengths; assistant
prose mixed with markup of every policy class, including large payloads (files of
hundreds of lines, SQL, logs, diffs) and thinking blocks; compaction summaries stored
one second before their triggering user message; German, French, Russian and Japanese
text; file paths; a Zipf-like vocabulary so common words are very common.

Two profiles (`PROFILES`), same generator and manifest:

- `standard`: about 1.25 KB of content per message (measured on 200,000), the largest app
  ~15-16% of messages.
- `heavy`: the shape of real app-builder histories (issue 16): about 5.4 KB per
  message, the largest app ~18%; about 30% of assistant messages hold 1-3 `dyad-write`
  blocks of 200-2,000 lines, 40% hold `think` blocks, some SQL and dependency tags, 1%
  of messages are compaction summaries; user messages are short, a quarter name a file,
  some are German, French or Japanese.
"""

from __future__ import annotations

import itertools
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import attrs

from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL

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

    def compaction_before(self, index: int) -> bool:
        return index == 10

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


HEAVY_MULTILINGUAL = [
    "Kannst du das Anmeldeformular reparieren? Die Sitzung läuft zu früh ab.",
    "Bitte die Übersetzung der Einstellungsseite prüfen, die Umlaute fehlen.",
    "Warum schlägt der Export nach der Änderung fehl?",
    "Peux-tu corriger la page de connexion ? Le bouton ne répond plus.",
    "La mise à jour du schéma a cassé l'écran des préférences.",
    "Il faudrait ajouter une vérification de l'adresse électronique.",
    "ログイン画面のエラーを直してください。",
    "ユーザー認証の方式を決めた。セッションを使います。",
    "設定ページのレイアウトが崩れています。",
]
HEAVY_DIRECTORIES = [
    "src/auth",
    "src/components",
    "src/components/ui",
    "src/pages",
    "src/hooks",
    "src/lib",
    "app/routes",
    "server/api",
    "supabase/migrations",
]
HEAVY_FILES = [
    "login.ts",
    "session.ts",
    "Button.tsx",
    "Header.tsx",
    "Settings.tsx",
    "db.ts",
    "useAuth.ts",
    "billing.tsx",
    "users.ts",
    "Dashboard.tsx",
    "api.ts",
    "schema.sql",
    "utils.ts",
    "Modal.tsx",
]
USER_OPENINGS = [
    "can you fix",
    "please add",
    "why does",
    "make",
    "the",
    "now update",
    "i want",
]
PACKAGES = ["zod", "react-hook-form", "@supabase/supabase-js", "date-fns", "lucide-react", "clsx"]
CODE_TEMPLATES = [
    "import {{ {a} }} from './{b}';",
    "export function {a}({b}: string) {{",
    "  const {a} = use{B}();",
    "  if (!{a}) return null;",
    '    <div className="{a} {b}">',
    "      <{B} onClick={{() => set{A}({b})}} />",
    "    </div>",
    "  return {a}.map(({b}) => {b}.id);",
    "}}",
    "  // {a} the {b} before {c}",
    "  await supabase.from('{a}').select('*').eq('{b}', {c});",
    "  {a}: z.string().min(1),",
    "",
]


class HeavyWriter(Writer):
    """Payload-heavy assistant messages, short user messages (see the module text)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.paths = [f"{d}/{f}" for d in HEAVY_DIRECTORIES for f in HEAVY_FILES]
        # A fixed corpus of code lines, sliced for file bodies: generating hundreds of
        # millions of lines one by one would make a 1M-message fixture take hours.
        lines = []
        for _ in range(8192):
            a, b, c = self.random.choices(self.words[:2000], k=3)
            template = self.random.choice(CODE_TEMPLATES)
            lines.append(template.format(a=a, b=b, c=c, A=a.capitalize(), B=b.capitalize()))
        corpus = "\n".join(lines + lines) + "\n"
        self.code = corpus
        self.line_starts = [0]
        for line in lines + lines:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)
        self.corpus_lines = len(lines)

    def code_block(self, lines: int) -> str:
        start = self.random.randrange(self.corpus_lines)
        return self.code[self.line_starts[start] : self.line_starts[start + lines]]

    def sql(self) -> str:
        table = self.random.choice(self.words[:200])
        columns = ",\n".join(
            f"  {self.random.choice(self.words)} text" for _ in range(self.random.randint(3, 30))
        )
        return f"CREATE TABLE {table} (\n  id uuid primary key,\n{columns}\n);"

    def user_message(self) -> str:
        roll = self.random.random()
        if roll < 0.07:
            return self.random.choice(HEAVY_MULTILINGUAL)
        text = self.random.choice(USER_OPENINGS) + " " + self.prose(3, 30)
        if roll < 0.32:
            text += f" in {self.random.choice(self.paths)}"
        return text

    def file_lines(self) -> int:
        return int(200 * 10 ** self.random.random())  # log-uniform in [200, 2000)

    def assistant_message(self, hidden: str | None) -> str:
        parts = [self.prose(10, 80)]
        secret = f" {hidden} " if hidden else " "
        if self.random.random() < 0.4 or hidden:  # a hidden term always has a body
            parts.append(f"<think>{self.prose(60, 400)}{secret}</think>")
        if self.random.random() < 0.3:
            for _ in range(self.random.choices((1, 2, 3), weights=(17, 2, 1))[0]):
                parts.append(
                    f'<dyad-write path="{self.random.choice(self.paths)}" '
                    f'description="{self.prose(3, 8)}">\n'
                    f"{self.code_block(self.file_lines())}{secret}\n</dyad-write>"
                )
                parts.append(self.prose(3, 20))
        kind = self.random.random()
        if kind < 0.06:
            parts.append(
                f'<dyad-execute-sql description="{self.prose(2, 6)}">{self.sql()}{secret}'
                "</dyad-execute-sql>"
            )
        elif kind < 0.1:
            packages = " ".join(self.random.sample(PACKAGES, self.random.randint(1, 3)))
            parts.append(f'<dyad-add-dependency packages="{packages}"></dyad-add-dependency>')
        elif kind < 0.14:
            parts.append(f'<dyad-read path="{self.random.choice(self.paths)}"></dyad-read>')
        elif kind < 0.16:
            parts.append(f'<dyad-status title="Build">{self.prose(5, 15)}</dyad-status>')
        if self.random.random() < 0.03:
            parts.append(self.random.choice(HEAVY_MULTILINGUAL))
        parts.append(self.prose(5, 40))
        return "\n".join(parts)

    def compaction_before(self, index: int) -> bool:
        # ~1% of all messages: summaries come before a user message.
        return index % 2 == 0 and index > 0 and self.random.random() < 0.02


@attrs.frozen
class Profile:
    name: str
    writer: type[Writer]
    largest_share: float  # the largest app's weight; the other apps weigh 1.0 each


PROFILES = {
    "standard": Profile("standard", Writer, 1.6),
    "heavy": Profile("heavy", HeavyWriter, 2.0),
}


def generate(
    path: Path, *, messages: int, apps: int = 10, seed: int = 7, profile: str = "standard"
) -> dict[str, Any]:
    """Write the fixture of a profile (`PROFILES`); the largest app holds about 15-16%
    (standard) or 18% (heavy) of all messages."""
    shape = PROFILES[profile]
    writer = shape.writer(seed)
    connection = sqlite3.connect(path)
    connection.executescript(REFERENCE_HOST_DDL)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = OFF")
    shares = [shape.largest_share] + [1.0] * (apps - 1)
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
                if writer.compaction_before(index):
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
            connection.commit()
            written += size
    connection.close()
    manifest = {
        "profile": profile,
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
