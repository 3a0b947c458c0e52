"""The tantivy engine (optional extra `tantivy`): the searchable text in tantivy indexes
beside the host's SQLite database, with block-max top-k scoring; the dirty queue, the
triggers and what is visible stay in the database. See `index_store.py`."""
