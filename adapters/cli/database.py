"""Where a command's database is, with which schema mapping, and opening it through the
facade. A missing database is an error naming the fix, never a new empty file.

`--db` is a SQLite file path or a PostgreSQL URL (`postgresql://` or `postgres://`),
told apart once (`host_database`): `admin(arguments)` is the admin port over it
(`adapters/administration.py`: the same calls and reports for both), `open_recall`
the facade over it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from chat_recall.adapters.host_database import HostDatabase, PostgresUrl, host_database
from chat_recall.adapters.sqlite_host.database import require_existing
from chat_recall.adapters.sqlite_host.schema import HostSchema
from chat_recall.domain.errors import InvalidArguments

if TYPE_CHECKING:
    from chat_recall.adapters.administration import IndexAdministration
    from chat_recall.adapters.sqlite_host.engines import Engine
    from chat_recall.application.indexer import IndexerSettings
    from chat_recall.application.service import ChatRecall


def located(arguments: argparse.Namespace) -> HostDatabase:
    """The --db database: a SQLite file or a PostgreSQL URL."""
    return host_database(arguments.db)


def target(arguments: argparse.Namespace) -> str | Path:
    """The PostgreSQL URL, or the SQLite file path (as the commands print it)."""
    database = located(arguments)
    return database.url if isinstance(database, PostgresUrl) else database.path


def admin(arguments: argparse.Namespace) -> IndexAdministration:
    """The admin port of the --db database with the --schema mapping."""
    from chat_recall.adapters import bootstrap

    return bootstrap.administration(located(arguments), schema(arguments))


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


def indexer_settings(arguments: argparse.Namespace) -> IndexerSettings | None:
    """The indexer's settings for a command that indexes (`--planning-processes`, else
    what suits a process of chat-recall's own: `PlanningSettings.for_own_process`);
    None for one that does not (a search or a read never loads the indexer)."""
    if "planning_processes" not in arguments:
        return None
    from chat_recall.application.indexer import IndexerSettings
    from chat_recall.application.planning import PlanningSettings

    processes = arguments.planning_processes
    planning = (
        PlanningSettings.for_own_process()
        if processes is None
        else PlanningSettings(processes=processes)
    )
    return IndexerSettings(planning=planning)


def open_recall(arguments: argparse.Namespace, engine: Engine | None = None) -> ChatRecall:
    """The facade over an existing database where chat-recall is installed, with the
    engine that built its index (or `engine`, which is then recorded); nothing else is
    written at start."""
    from chat_recall.adapters import bootstrap

    settings = indexer_settings(arguments)
    database = located(arguments)
    if isinstance(database, PostgresUrl):
        return bootstrap.postgres(
            database.url, schema=schema(arguments), install=False, settings=settings
        )
    return bootstrap.sqlite(
        require_existing(database.path),
        schema=schema(arguments),
        install=engine is not None,
        engine=engine,
        settings=settings,
    )


def recorded_engine(arguments: argparse.Namespace) -> Engine | None:
    """The engine that built the database's index (None: PostgreSQL's own, or nothing
    recorded)."""
    return admin(arguments).recorded_engine()


def apply_semantic(arguments: argparse.Namespace) -> str | None:
    """Record the --semantic choice with the index (None when none was given): a
    remote one only after the user agreed to its disclosure (asked on a terminal, or
    --yes). Turning it on queues every message for a vector (`chat-recall index`
    makes them); off drops them now, in short transactions. Returns what to print."""
    import sys

    from chat_recall.adapters import bootstrap
    from chat_recall.adapters.semantic import Semantic

    kind = getattr(arguments, "semantic", None)
    if kind is None:
        return None
    if kind == "off":
        semantic = Semantic.off()
    elif kind == "local":
        semantic = Semantic.local(arguments.embedding_model_dir)
    else:
        if not arguments.embedding_url or not arguments.embedding_model:
            raise InvalidArguments(
                "--semantic openai-compatible needs --embedding-url and --embedding-model"
            )
        semantic = Semantic.openai_compatible(
            arguments.embedding_url,
            arguments.embedding_model,
            api_key_variable=arguments.embedding_api_key_env,
        )
        print(semantic.disclosure())
        agreed = arguments.yes
        if not agreed and sys.stdin.isatty():
            agreed = input("Send this text there? [y/N] ").strip().lower() in ("y", "yes")
        if not agreed:
            raise InvalidArguments(
                "semantic search was not turned on: it needs your agreement to the "
                "disclosure above (answer y, or pass --yes)"
            )
        semantic = attrs.evolve(semantic, consented_to=semantic.destination)
    database = located(arguments)
    if isinstance(database, PostgresUrl):
        recall = bootstrap.postgres(database.url, schema=schema(arguments), semantic=semantic)
    else:
        recall = bootstrap.sqlite(database.path, schema=schema(arguments), semantic=semantic)
    with recall:
        if not semantic.enabled:
            return "semantic search: off (its vectors dropped)"
        embedding = recall.indexer.embedding
        assert embedding is not None
        embedding.prepare()  # loads the model now: a missing extra is said here
        coverage = recall.vectors.vector_coverage(None)
    return (
        f"semantic search: {coverage.model}; {coverage.pending:,} messages to embed "
        "(run: chat-recall index)"
    )
