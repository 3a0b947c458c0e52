"""Where a command's database is, with which schema mapping, and opening it through the
facade. A missing database is an error naming the fix, never a new empty file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from chat_recall.adapters.sqlite.database import require_existing
from chat_recall.adapters.sqlite.schema import HostSchema
from chat_recall.domain.errors import InvalidArguments

if TYPE_CHECKING:
    from chat_recall.adapters.sqlite.database import WriteLockStats
    from chat_recall.application.service import ChatRecall


def path(arguments: argparse.Namespace) -> Path:
    return Path(arguments.db)


def schema(arguments: argparse.Namespace) -> HostSchema:
    """The --schema mapping (a JSON object of HostSchema fields), else the reference."""
    mapping = getattr(arguments, "schema", None)
    if mapping is None:
        return HostSchema.reference()
    try:
        fields = json.loads(Path(mapping).read_text(encoding="utf-8"))
        if not isinstance(fields, dict):
            raise TypeError("expected a JSON object of HostSchema fields")
        return HostSchema(**fields)
    except (OSError, ValueError, TypeError) as error:
        raise InvalidArguments(f"cannot use the schema mapping {mapping}: {error}") from error


def open_recall(arguments: argparse.Namespace) -> ChatRecall:
    """The facade over an existing database where chat-recall is installed; nothing is
    written at start."""
    from chat_recall.adapters import bootstrap

    return bootstrap.sqlite(
        require_existing(path(arguments)),
        schema=schema(arguments),
        install=False,
    )


def write_lock(recall: ChatRecall) -> WriteLockStats:
    """How long this process's transactions on the database held its write lock."""
    from chat_recall.adapters.sqlite.database import SqliteDatabase

    database = recall.index.database  # type: ignore[attr-defined]
    assert isinstance(database, SqliteDatabase)
    return database.lock_stats
