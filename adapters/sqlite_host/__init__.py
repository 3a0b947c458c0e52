"""The host's SQLite database as chat-recall keeps its bookkeeping there, whichever engine
(`adapters/sqlite`: FTS5; `adapters/tantivy`) holds the searchable text: the connection
and its time limit, the schema and its migrations, the dirty queue and its triggers, the
document rows, the app registry, the host-side audit and the admin port's implementation.
It imports neither engine; both import it."""
