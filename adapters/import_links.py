"""chat-recall's table of source links, which makes a re-import an update: the same for
the SQLite and PostgreSQL engines (neither imports the other; `sql_import_target.py`
writes it).

`chat_recall_import_links` holds one row per source record an import wrote: an
account's or project's app (`app`), a conversation's chat (`chat`, with the fingerprint
it had) and each of its messages (`message`, keyed by the conversation's id, a newline
and the message's id, so a chat's messages are one range of the primary key). Rows whose
chat or message the host deleted since are ignored (the join to the host's rows), and
replaced when the record is imported again.
"""

from __future__ import annotations

IMPORT_LINKS = "chat_recall_import_links"

# Created by each engine's setup in a short transaction of its own, and kept by
# `rebuild` (the links describe the host's rows, not the index).
IMPORT_LINKS_DDL = f"""
CREATE TABLE IF NOT EXISTS {IMPORT_LINKS} (
    kind TEXT NOT NULL,
    format TEXT NOT NULL,
    source_id TEXT NOT NULL,
    target BIGINT NOT NULL,
    fingerprint TEXT,
    PRIMARY KEY (kind, format, source_id)
)"""
