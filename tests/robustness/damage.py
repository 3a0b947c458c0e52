"""Damaging chat-recall's derived objects the ways hosts and disks do: a migration that
rebuilds the messages table (dropping its triggers), a deleted registry row, a bad
schema version, corrupt FTS5 data (the structure record, the config, a lost shadow
table, a b-tree page) and randomised bytes in the pages of the FTS5 shadow tables."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path

DAMAGES = ("structure", "structure_oom", "config", "lost_shadow", "btree", "pages")

# Fixed bytes for the FTS5 structure record, so each damage is the same every run (SQLite's
# own randomblob() made the kind of failure vary from run to run): these 40 bytes read as
# a malformed record, the second 40 as one that asks for a huge allocation (SQLITE_NOMEM,
# which Python raises as MemoryError).
MALFORMED_STRUCTURE = random.Random(0).randbytes(40)
HUGE_STRUCTURE = random.Random(33).randbytes(40)


def checkpoint(path: Path) -> None:
    """Everything in the main file, no WAL left (so page offsets are the file's)."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


def host_digest(path: Path) -> str:
    """A digest of every host row (chats and messages), to prove none was touched."""
    connection = sqlite3.connect(path)
    digest = hashlib.sha256()
    for table in ("chats", "messages"):
        for row in connection.execute(f"SELECT * FROM {table} ORDER BY id"):
            digest.update(repr(row).encode())
    connection.close()
    return digest.hexdigest()


def damage(path: Path, how: str, *, seed: int = 0, app_id: int = 1) -> None:
    table = f"chat_recall_fts_{app_id}"
    checkpoint(path)
    connection = sqlite3.connect(path, isolation_level=None)
    if how in ("structure", "structure_oom"):  # the record FTS5 reads first
        block = MALFORMED_STRUCTURE if how == "structure" else HUGE_STRUCTURE
        connection.execute(f"UPDATE {table}_data SET block = ? WHERE id = 10", (block,))
    elif how == "config":
        connection.execute(f"UPDATE {table}_config SET v = 99 WHERE k = 'version'")
    elif how == "lost_shadow":
        connection.execute(f"DROP TABLE {table}_config")
    elif how == "btree":  # a b-tree page SQLite itself reports: 'database disk image is
        # malformed' (SQLITE_CORRUPT, after which it refuses the rest of the transaction)
        overwrite_root_page(connection, path, f"{table}_data")
    elif how == "pages":
        _randomise_pages(connection, path, table, seed)
    else:
        raise ValueError(how)
    connection.close()


def _randomise_pages(connection: sqlite3.Connection, path: Path, table: str, seed: int) -> None:
    pages = [
        (name, page)
        for name, page in connection.execute(
            "SELECT name, pageno FROM dbstat WHERE name LIKE ? ORDER BY pageno", (f"{table}_%",)
        )
    ]
    size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    chooser = random.Random(seed)
    chosen = chooser.sample(pages, min(3, len(pages)))
    with open(path, "r+b") as handle:
        for _, page in chosen:
            handle.seek((page - 1) * size)
            first = _first_used_byte(handle.read(size), page)
            handle.seek((page - 1) * size + chooser.randrange(first, size - 48))
            handle.write(chooser.randbytes(48))


def overwrite_root_page(connection: sqlite3.Connection, path: Path, name: str) -> None:
    root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,))
    page = root.fetchone()[0]
    size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    with open(path, "r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(bytes([13]) + b"\xff" * 11)  # a leaf page whose header points nowhere


def _first_used_byte(data: bytes, page: int) -> int:
    """Where the bytes in use begin in a page: a b-tree page's cell content area (the
    unused gap before it would take random bytes unnoticed, and how large it is depends
    on how the index was merged); an overflow page's data, after its next-page number."""
    header = 100 if page == 1 else 0
    if data[header] in (2, 5, 10, 13):  # b-tree pages
        start = int.from_bytes(data[header + 5 : header + 7], "big") or 65536
        return min(start, len(data) - 64)
    return 4
