"""Adapters: storage (SQLite FTS5, in-memory), the wiring, and the driving CLI."""
