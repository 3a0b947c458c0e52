"""The SQLite FTS5 engine (the default): the searchable text in one FTS5 table per app
inside the host's database; its bookkeeping there (documents, dirty queue, migrations)
is the host database's, in `adapters/sqlite_host/`, shared with the tantivy engine."""
