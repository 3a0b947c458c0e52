"""Where a host's database is: a SQLite file or a PostgreSQL URL, told apart once (from
the CLI's `--db`), so the code after it chooses by type, never by looking at the
string again."""

from __future__ import annotations

from pathlib import Path

import attrs

URL_SCHEMES = ("postgresql://", "postgres://")


@attrs.frozen
class SqliteFile:
    path: Path


@attrs.frozen
class PostgresUrl:
    url: str


HostDatabase = SqliteFile | PostgresUrl


def host_database(location: str | Path) -> HostDatabase:
    """A `postgresql://` or `postgres://` URL, else a SQLite file path."""
    text = str(location)
    return PostgresUrl(text) if text.startswith(URL_SCHEMES) else SqliteFile(Path(location))
