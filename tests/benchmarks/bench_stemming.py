"""What one scored term per word family costs, by physical layout (issue 14).

Projects the scale fixture (`fixture.py`, standard profile) once with the domain's own
`build_document`, then builds the same per-app documents in each layout and measures
insert time, the bytes of every FTS5 object (`dbstat`), and the median time of top-200
bm25 queries whose words have inflections:

- `surface`: today's table, `unicode61 remove_diacritics 2`, no stemming.
- `surface + snowball table`: plus a second FTS5 table per app holding the Snowball
  English stems of title and body (computed in Python with PyStemmer, as the domain's
  stemmer port would), searched instead of the surface table.
- `surface + porter table`: plus a second FTS5 table per app with FTS5's own `porter`
  tokenizer over external content (the surface table), so no text is stored twice.
- `snowball in place`: one table per app that stores the text unindexed and indexes
  only the Snowball stems (no surface index).
- `porter in place`: today's table with `porter unicode61 remove_diacritics 2`: the
  stems replace the surface index (no second index, no text stored twice).

Run: python -m tests.benchmarks.bench_stemming [--messages 50000]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import Stemmer

from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.domain.indexing import build_document
from chat_recall.domain.messages import Role
from chat_recall.domain.model import SourceRow, StoredMessage
from chat_recall.domain.projection import DEFAULT_POLICY
from chat_recall.domain.text import tokenize
from tests.benchmarks.fixture import generate

TOKENIZER = "unicode61 remove_diacritics 2"
Document = tuple[int, int, int, str, str]  # message, app, chat, title, body


def documents(host: Path) -> list[Document]:
    connection = sqlite3.connect(host)
    rows = connection.execute(
        "SELECT m.id, m.chat_id, m.role, m.content, m.created_at, m.is_compaction_summary, "
        "c.app_id, c.title FROM messages m JOIN chats c ON c.id = m.chat_id ORDER BY m.id"
    ).fetchall()
    connection.close()
    assert HostSchema.reference()
    built = []
    for mid, chat, role, content, created, summary, app, title in rows:
        message = StoredMessage(mid, chat, Role(role), content, created, bool(summary))
        document = build_document(SourceRow(message, app, title), DEFAULT_POLICY)
        if document is not None:
            built.append((mid, app, chat, document.title, document.body))
    return built


def stems_of(stemmer: Stemmer.Stemmer) -> Callable[[str], str]:
    def stems(text: str) -> str:
        return " ".join(stemmer.stemWords(list(tokenize(text))))

    return stems


def build(path: Path, docs: list[Document], layout: str) -> float:
    """Insert every document in `layout`; seconds spent, stemming included."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode = WAL")
    stems = stems_of(Stemmer.Stemmer("english"))
    apps = sorted({d[1] for d in docs})
    for app in apps:
        if layout == "snowball-in-place":
            connection.execute(
                f"CREATE VIRTUAL TABLE fts_{app} USING fts5(title UNINDEXED, body UNINDEXED, "
                f"title_stems, body_stems, chat_ref, tokenize = '{TOKENIZER}')"
            )
            continue
        porter = "porter " if layout == "porter-in-place" else ""
        connection.execute(
            f"CREATE VIRTUAL TABLE fts_{app} USING fts5(title, body, chat_ref, "
            f"tokenize = '{porter}{TOKENIZER}')"
        )
        if layout == "snowball":
            connection.execute(
                f"CREATE VIRTUAL TABLE stem_{app} USING fts5(title, body, chat_ref, "
                f"tokenize = '{TOKENIZER}')"
            )
        elif layout == "porter":
            connection.execute(
                f"CREATE VIRTUAL TABLE stem_{app} USING fts5(title, body, chat_ref, "
                f"content = 'fts_{app}', tokenize = 'porter {TOKENIZER}')"
            )
    started = time.perf_counter()
    for start in range(0, len(docs), 256):  # batches of 256 documents
        batch = docs[start : start + 256]
        with connection:
            for app in {d[1] for d in batch}:
                rows = [(m, t, b, f"c{c}") for m, a, c, t, b in batch if a == app]
                if layout == "snowball-in-place":
                    connection.executemany(
                        f"INSERT INTO fts_{app}(rowid, title, body, title_stems, body_stems, "
                        "chat_ref) VALUES (?, ?, ?, ?, ?, ?)",
                        [(m, t, b, stems(t), stems(b), ref) for m, t, b, ref in rows],
                    )
                    continue
                connection.executemany(
                    f"INSERT INTO fts_{app}(rowid, title, body, chat_ref) VALUES (?, ?, ?, ?)",
                    rows,
                )
                if layout == "snowball":
                    connection.executemany(
                        f"INSERT INTO stem_{app}(rowid, title, body, chat_ref) VALUES (?, ?, ?, ?)",
                        [(m, stems(t), stems(b), ref) for m, t, b, ref in rows],
                    )
                elif layout == "porter":
                    connection.executemany(
                        f"INSERT INTO stem_{app}(rowid, title, body, chat_ref) VALUES (?, ?, ?, ?)",
                        rows,
                    )
    elapsed = time.perf_counter() - started
    with connection:
        for app in apps:
            second = layout in ("snowball", "porter")
            for table in (f"fts_{app}", *([f"stem_{app}"] if second else [])):
                connection.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    connection.execute("VACUUM")
    connection.close()
    return elapsed


def sizes(path: Path) -> dict[str, int]:
    connection = sqlite3.connect(path)
    rows = connection.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    connection.close()
    totals: dict[str, int] = {}
    for name, size in rows:
        kind = "stems " if name.startswith("stem_") else "surface "
        part = name.rsplit("_", 1)[-1] if "_" in name[5:] else "table"
        key = kind + ("content" if part == "content" else "index")
        totals[key] = totals.get(key, 0) + size
    return totals


def query_times(path: Path, layout: str, app: int, words: list[str]) -> float:
    connection = sqlite3.connect(path)
    stemmer = Stemmer.Stemmer("english")
    table = f"stem_{app}" if layout in ("snowball", "porter") else f"fts_{app}"
    columns = "{title_stems body_stems}" if layout == "snowball-in-place" else "{title body}"
    weights = "0.0, 0.0, 10.0, 1.0, 0.0" if layout == "snowball-in-place" else "10.0, 1.0, 0.0"
    timings = []
    for word in words:
        term = stemmer.stemWord(word) if layout.startswith("snowball") else word
        sql = (
            f"SELECT rowid, bm25({table}, {weights}) AS s FROM {table} "
            f"WHERE {table} MATCH ? ORDER BY s LIMIT 200"
        )
        match = f'{columns} : "{term}"'
        for _ in range(5):
            started = time.perf_counter()
            connection.execute(sql, (match,)).fetchall()
            timings.append(time.perf_counter() - started)
    connection.close()
    return statistics.median(timings) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    arguments = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="bench-stemming-"))
    generate(directory / "host.db", messages=arguments.messages)
    started = time.perf_counter()
    docs = documents(directory / "host.db")
    projection = time.perf_counter() - started
    print(f"{len(docs)} documents; projection {projection:.1f} s")
    common = [w for w, _ in _frequent_words(docs, 40)][::4]
    print("query words:", " ".join(common))
    largest = max({d[1] for d in docs}, key=lambda a: sum(1 for d in docs if d[1] == a))
    base = None
    for layout in ("surface", "snowball", "porter", "snowball-in-place", "porter-in-place"):
        path = directory / f"{layout}.db"
        seconds = build(path, docs, layout)
        parts = sizes(path)
        total = sum(parts.values())
        base = base or (seconds, total)
        query = query_times(path, layout, largest, common)
        print(
            f"{layout:17} insert {seconds:6.1f} s ({seconds / base[0]:.2f}x)  "
            f"size {total / 2**20:7.1f} MiB ({total / base[1]:.2f}x)  "
            + "  ".join(f"{k} {v / 2**20:.1f}" for k, v in sorted(parts.items()))
            + f"  query median {query:.2f} ms"
        )


def _frequent_words(docs: list[Document], count: int) -> list[tuple[str, int]]:
    seen: dict[str, int] = {}
    for _, _, _, _, body in docs[:5000]:
        for token in tokenize(body):
            if token.isalpha() and len(token) > 4:
                seen[token] = seen.get(token, 0) + 1
    return sorted(seen.items(), key=lambda item: -item[1])[:count]


if __name__ == "__main__":
    main()
