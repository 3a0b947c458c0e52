"""The reference host's tables as SQLite creates them (`init`, the demo, tests).

The mapping itself (`HostSchema`, `quote`) is shared by every engine and lives in the
neutral `adapters/host_schema.py`; it is named here too for the SQLite engine's modules.
"""

from __future__ import annotations

from chat_recall.adapters.host_schema import HostSchema, quote

__all__ = ["REFERENCE_HOST_DDL", "HostSchema", "quote"]

REFERENCE_HOST_DDL = """
CREATE TABLE IF NOT EXISTS chats (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id INTEGER NOT NULL,
    title TEXT,
    initial_commit_hash TEXT,
    created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER))
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    approval_state TEXT,
    commit_hash TEXT,
    is_compaction_summary INTEGER NOT NULL DEFAULT 0,
    ai_messages_json TEXT,
    created_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER))
);
CREATE INDEX IF NOT EXISTS messages_chat_id_idx ON messages(chat_id);
"""
