"""The one wiring module: builds a punq container per deployment and resolves the
`ChatRecall` facade. Nothing is built at import time.

    recall = bootstrap.sqlite("app.db")          # the embedded default
    recall = bootstrap.postgres("postgresql://...")  # inside a host's PostgreSQL database
    recall = bootstrap.sqlite("app.db", engine=Engine.TANTIVY)  # text in tantivy
    recall = bootstrap.in_memory()               # for hosts' own tests
    recall = bootstrap.custom(repo=..., index=..., unit_of_work=..., dirty=..., host=...)

`overrides` replaces any registered service (by its port or class) with an instance.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import punq

from chat_recall.adapters.claimants import ProcessClaimants
from chat_recall.adapters.host_schema import HostSchema
from chat_recall.adapters.pacing import UnpacedWrites
from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
from chat_recall.adapters.sqlite_host import engines, setup, vector_tables
from chat_recall.adapters.sqlite_host.database import SqliteDatabase, missing_database
from chat_recall.adapters.sqlite_host.dirty_queue import SqliteDirtyQueue
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.adapters.sqlite_host.message_repo import SqliteMessageRepo, SqliteMessageRepoOpener
from chat_recall.adapters.system_clock import SystemClock
from chat_recall.adapters.telemetry import NullTelemetry
from chat_recall.application.deferred import Deferred
from chat_recall.application.health import IndexHealth
from chat_recall.application.progress import IndexProgress
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.list_chats import ListChats
from chat_recall.application.tools.read_chat import ReadChat
from chat_recall.application.tools.registry import ToolRegistry, ToolSettings
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.application.tools.tool import Tool
from chat_recall.application.write_lock import WriteLockStats
from chat_recall.domain.errors import IndexUnavailable, StorageReadOnly
from chat_recall.domain.ports import (
    BatchPlanner,
    Claimants,
    Clock,
    DirtyQueue,
    Embedder,
    HostWriter,
    IndexAudit,
    IndexStore,
    IndexUnitOfWork,
    MessageRepo,
    MessageRepoOpener,
    Telemetry,
    VectorStore,
    WritePacer,
)
from chat_recall.domain.projection import DEFAULT_POLICY, MarkupPolicy, TagRule
from chat_recall.domain.search.ranking import SearchPolicy
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.language import Language

if TYPE_CHECKING:
    from chat_recall.adapters.administration import IndexAdministration
    from chat_recall.adapters.host_database import HostDatabase
    from chat_recall.adapters.memory.database import InMemoryDatabase
    from chat_recall.adapters.semantic import Semantic
    from chat_recall.application.embedding import Embedding
    from chat_recall.application.importing import ImportTarget
    from chat_recall.application.indexer import Indexer, IndexerSettings
    from chat_recall.application.semantic import Warming

Overrides = Mapping[Any, object]


# The tools a facade offers, in the order they are listed to the model. A new tool is
# one module implementing `application.tools.tool.Tool` plus one entry here.
TOOLS: tuple[type[Tool], ...] = (SearchChats, ReadChat, ListChats)


def _with_card_rules(policy: MarkupPolicy, tools: ToolSettings) -> MarkupPolicy:
    """Every tool's card (under the host's prefix) is dropped by the projection, so the
    tools' own output never becomes searchable history."""
    prefix = tools.card_prefix
    return policy.with_rules(
        {f"{prefix}{tool.definition.card_tag}": TagRule.drop() for tool in TOOLS}
    )


def _container(policy: MarkupPolicy, tools: ToolSettings | None) -> punq.Container:
    tool_settings = tools or ToolSettings()
    container = punq.Container()
    container.register(MarkupPolicy, instance=_with_card_rules(policy, tool_settings))
    container.register(ToolSettings, instance=tool_settings)
    container.register(Telemetry, NullTelemetry, scope=punq.Scope.singleton)
    container.register(Clock, SystemClock, scope=punq.Scope.singleton)
    container.register(IndexProgress, scope=punq.Scope.singleton)
    container.register(IndexHealth, scope=punq.Scope.singleton)
    container.register(WriteLockStats, scope=punq.Scope.singleton)
    container.register(WritePacer, instance=UnpacedWrites())
    container.register(Claimants, instance=ProcessClaimants())
    container.register(SearchPolicy, instance=SearchPolicy.default())
    for tool in TOOLS:
        container.register(tool, scope=punq.Scope.singleton)
    container.register(
        ToolRegistry,
        factory=lambda: ToolRegistry.of(
            (container.resolve(tool) for tool in TOOLS),
            container.resolve(ToolSettings),
            container.resolve(Telemetry),
            container.resolve(Clock),
        ),
        scope=punq.Scope.singleton,
    )
    return container


def _alias(container: punq.Container, port: Any, adapter: type[Any]) -> None:
    """Resolve `port` to the container's one instance of `adapter` (registered as a
    singleton), so a unit of work and the port share it and overrides still apply."""
    container.register(adapter, scope=punq.Scope.singleton)
    container.register(port, factory=lambda: container.resolve(adapter))


def _on_first_use(container: punq.Container, port: Any, adapter: Callable[[], type[Any]]) -> None:
    """Resolve `port` to one instance of the class `adapter()` returns: its module is
    imported, and the instance built, when the port is first resolved."""
    container.register(
        port, factory=lambda: container.instantiate(adapter()), scope=punq.Scope.singleton
    )


def _indexer(
    container: punq.Container,
    settings: IndexerSettings | None,
    embedding: Deferred[Embedding] | None = None,
) -> Indexer:
    # Imported here: a process that only calls the tools never loads the indexer.
    from chat_recall.application.indexer import Indexer, IndexerSettings
    from chat_recall.application.planning import InProcessPlanning, Turns

    settings = settings or IndexerSettings()
    here = InProcessPlanning(
        container.resolve(DirtyQueue),
        container.resolve(Clock),
        Turns.of(settings.pacing),
    )
    planner: BatchPlanner = here
    try:  # where planning processes open their own reader (database files only)
        opener = container.resolve(MessageRepoOpener)
    except punq.MissingDependencyError:
        opener = None
    if settings.planning.processes > 0 and opener is not None:
        # Imported only when asked for: an embedding host never loads process machinery.
        from chat_recall.adapters.planning.processes import ProcessPlanning

        planner = ProcessPlanning(
            here,
            container.resolve(DirtyQueue),
            container.resolve(Clock),
            settings.planning,
            opener,
        )
    return container.instantiate(
        Indexer,
        settings=settings,
        planner=planner,
        embedding=None if embedding is None else embedding.get(),
    )


def _no_imports() -> ImportTarget:
    raise IndexUnavailable("this storage adapter has no import target")


def _finish(
    container: punq.Container,
    settings: IndexerSettings | None,
    overrides: Overrides,
    imports: Callable[[], ImportTarget] = _no_imports,
    *,
    vectors: bool = True,
    embedding: Deferred[Embedding] | None = None,
) -> ChatRecall:
    """The facade over the container's services; the indexer, unit of work, host
    writer, audit and import target are resolved on first use (`Deferred`), so a
    process that only calls the tools never imports them."""
    if settings is not None and isinstance(container.resolve(WritePacer), UnpacedWrites):
        unpaced = UnpacedWrites(settings.sizing.budget_seconds, settings.pacing.limit_seconds)
        container.register(WritePacer, instance=unpaced)
    for service, instance in overrides.items():
        container.register(service, instance=instance)
    resolve = container.resolve
    building = threading.RLock()
    closes_embedder = embedding is not None  # one lock: these share dependencies (see Deferred)
    recall = ChatRecall(
        repo=resolve(MessageRepo),
        index=resolve(IndexStore),
        dirty=resolve(DirtyQueue),
        clock=resolve(Clock),
        policy=resolve(MarkupPolicy),
        progress=resolve(IndexProgress),
        health=resolve(IndexHealth),
        registry=resolve(ToolRegistry),
        write_lock=resolve(WriteLockStats),
        indexer=Deferred(lambda: _indexer(container, settings, embedding), lock=building),
        unit_of_work=Deferred(lambda: resolve(IndexUnitOfWork), lock=building),
        host=Deferred(lambda: resolve(HostWriter), lock=building),
        audit=Deferred(lambda: resolve(IndexAudit), lock=building),
        vectors=Deferred(lambda: resolve(VectorStore), lock=building) if vectors else None,
        imports=Deferred(imports, lock=building),
        warming=None if embedding is None else Deferred(lambda: _warming(container, settings)),
    )
    if closes_embedder:
        recall.on_close(resolve(Embedder).close)
    return recall


def _warming(container: punq.Container, settings: IndexerSettings | None) -> Warming:
    """The warming of the vectors searches read, taking turns with the host's threads
    as the indexer's planning does (the same pacing rule)."""
    from chat_recall.application.planning import Turns
    from chat_recall.application.semantic import Warming
    from chat_recall.domain.pacing import PacingRule

    pacing = PacingRule() if settings is None else settings.pacing
    return Warming(container.resolve(VectorStore), Turns.of(pacing))


# The SQLite adapter's classes that only indexing, host writes and audits need,
# imported on first use.
def _sqlite_unit_of_work() -> type[Any]:
    from chat_recall.adapters.sqlite.unit_of_work import SqliteIndexUnitOfWork

    return SqliteIndexUnitOfWork


def _sqlite_host_writer() -> type[Any]:
    from chat_recall.adapters.sqlite_host.host_writer import SqliteHostWriter

    return SqliteHostWriter


# Vectors removed per transaction when the semantic layer is turned off.
DROP_CHUNK = 2_000


def _wire_semantic(
    container: punq.Container,
    semantic: Semantic | None,
    recorded: str | None,
    *,
    writable: bool,
) -> Deferred[Embedding] | None:
    """The semantic layer as chosen (`semantic`), else as recorded with the index:
    search's `SemanticSearch` and the indexer's embedding job, both over one embedder
    built at its first use, after consent. A choice given here is recorded, so every
    later process uses it; `Semantic.off()` hides the vectors at once and drops them
    in short transactions. Nothing of the layer is imported while it is off."""
    if semantic is None and recorded is None:
        return None
    from chat_recall.adapters.semantic import Semantic
    from chat_recall.application.embedding import Embedding
    from chat_recall.application.semantic import LazyEmbedder, SemanticSearch, require_consent

    chosen = semantic if semantic is not None else Semantic.from_record(str(recorded))
    vectors: VectorStore = container.resolve(VectorStore)
    if writable and semantic is not None and semantic.to_record() != recorded:
        vectors.record_semantic_settings(semantic.to_record())
    if not chosen.enabled:
        if writable and semantic is not None:
            vectors.use_vector_model(None)
            while vectors.drop_step(DROP_CHUNK):
                pass
        return None
    tools: ToolSettings = container.resolve(ToolSettings)

    def build() -> Embedder:
        require_consent(
            chosen.disclosure(), chosen.destination, chosen.consented_to, tools.semantic_approver
        )
        return chosen.embedder()

    embedder = LazyEmbedder(Deferred(build))
    container.register(SemanticSearch, instance=SemanticSearch(embedder, vectors))
    container.register(Embedder, instance=embedder)
    return Deferred(lambda: Embedding(embedder, vectors, container.resolve(IndexStore)))


def _sqlite_vectors() -> type[Any]:
    from chat_recall.adapters.sqlite_host.vector_rows import SqliteVectorStore

    return SqliteVectorStore


def _sqlite_audit() -> type[Any]:
    from chat_recall.adapters.sqlite.audit import SqliteIndexAudit

    return SqliteIndexAudit


def _sqlite_imports(database: SqliteDatabase) -> Callable[[], ImportTarget]:
    def build() -> ImportTarget:
        from chat_recall.adapters.sqlite_host.import_target import sqlite_import_target

        return sqlite_import_target(database)

    return build


def sqlite(
    target: str | Path | sqlite3.Connection,
    *,
    schema: HostSchema | None = None,
    policy: MarkupPolicy = DEFAULT_POLICY,
    settings: IndexerSettings | None = None,
    tools: ToolSettings | None = None,
    create_host_schema: bool = False,
    install: bool = True,
    analysis: TextAnalysis | None = None,
    overrides: Overrides | None = None,
    engine: Engine | None = None,
    language: Language | None = None,
    semantic: Semantic | None = None,
) -> ChatRecall:
    """chat-recall inside a host's SQLite database (a path or an open connection).

    At start: FTS5 and the schema mapping are checked, the derived index is installed
    (idempotently), and WAL mode is switched on. With `create_host_schema`, the
    reference host tables are created first (standalone use). With `install=False` the
    derived index must already be installed (IndexUnavailable otherwise) and nothing is
    written at start.

    `language` is the language whose word families the index joins: `Language.GERMAN`
    makes `Rechnung` find `Rechnungen` (Snowball stems, the `snowball` extra);
    `Language.ENGLISH` is Porter stemming, `Language.NONE` no stemming. The default,
    `None`, keeps the language the index records (English when none is), as the CLI
    and the MCP server do; naming another one re-indexes in the background. `analysis`
    names the text analysis itself instead (tests and evaluations).

    `engine` says where the searchable text lives: FTS5 tables in the database
    (`Engine.SQLITE`), or tantivy indexes in a directory beside the database file
    (`pip install '.[tantivy]'` in a checkout; see the README for when to choose it).
    The default, `None`, opens the index with the engine that built it (FTS5 when none
    is recorded), as the CLI and the MCP server do. Naming the other engine switches:
    the index is re-indexed with it and the old engine's text dropped
    (`adapters/sqlite_host/engines.py`), so a process that opens a database another one serves
    never switches it unless it says so.

    A database this process cannot write (a read-only file, directory or file system)
    is opened read-only whatever `install` says: it must be installed already, the
    tools read it, no indexer runs, and search says the index cannot be advanced here.

    `semantic` turns the semantic layer on (`Semantic.local()`, `.openai_compatible`)
    or off (`Semantic.off()`, which drops the vectors), and records the choice with the
    index; None uses the choice recorded (off when none was): see `adapters/semantic.py`.
    """
    if isinstance(target, str | Path) and not create_host_schema and not Path(target).exists():
        raise missing_database(Path(target))
    database = SqliteDatabase.open(target, schema or HostSchema.reference())
    if settings is not None:
        database.pacer.rule = settings.pacing
    if create_host_schema:
        setup.create_reference_schema(database)
    analysis = setup.analysis_of(database, analysis, language)
    read_only = not database.writable()
    if install and not read_only:
        try:
            setup.start(database, analysis)
            engine = engine or engines.recorded_engine(database) or Engine.SQLITE
            engines.use_engine(database, engine)
        except StorageReadOnly:
            read_only = True
    if read_only or not install:
        setup.verify(database, analysis)
        engine = engine or engines.recorded_engine(database) or Engine.SQLITE
        engines.check_engine(database, engine)
    container = _container(policy, tools)
    container.register(IndexHealth, instance=IndexHealth(read_only=read_only))
    container.register(TextAnalysis, instance=analysis)
    container.register(SqliteDatabase, instance=database)
    container.register(WriteLockStats, instance=database.lock_stats)
    container.register(WritePacer, instance=database.pacer)
    container.register(MessageRepo, SqliteMessageRepo, scope=punq.Scope.singleton)
    if database.path is not None:
        container.register(
            MessageRepoOpener, instance=SqliteMessageRepoOpener(database.path, database.schema)
        )
    _on_first_use(container, HostWriter, _sqlite_host_writer)
    # Both engines keep their document rows, and so the vectors, in the database.
    _on_first_use(container, VectorStore, _sqlite_vectors)
    if engine is Engine.TANTIVY:
        closer = _wire_tantivy(container, database, analysis, install=install and not read_only)
    else:
        _alias(container, IndexStore, SqliteFts5IndexStore)
        _on_first_use(container, IndexUnitOfWork, _sqlite_unit_of_work)
        container.register(DirtyQueue, SqliteDirtyQueue, scope=punq.Scope.singleton)
        _on_first_use(container, IndexAudit, _sqlite_audit)
        closer = None
    with database.reading() as connection:
        recorded = vector_tables.recorded_settings(connection)
    embedding = _wire_semantic(container, semantic, recorded, writable=install and not read_only)
    recall = _finish(
        container, settings, overrides or {}, _sqlite_imports(database), embedding=embedding
    )
    recall.on_close(database.close)
    if closer is not None:
        recall.on_close(closer)
    return recall


def postgres(
    dsn: str,
    *,
    schema: HostSchema | None = None,
    policy: MarkupPolicy = DEFAULT_POLICY,
    settings: IndexerSettings | None = None,
    tools: ToolSettings | None = None,
    create_host_schema: bool = False,
    install: bool = True,
    analysis: TextAnalysis | None = None,
    pool_size: int | None = None,
    overrides: Overrides | None = None,
    language: Language | None = None,
    semantic: Semantic | None = None,
) -> ChatRecall:
    """chat-recall inside a host's PostgreSQL database (`postgresql://` URL or libpq
    connection string; psycopg 3 with a connection pool, the `postgres` extra).

    At start the schema mapping is checked and the derived index installed or upgraded
    (idempotently; the triggers in one short transaction, existing messages marked for
    indexing in short chunks). `create_host_schema` and `install=False` as for
    `sqlite`; `language` and `analysis` as for `sqlite` (applied by the adapter itself,
    so PostgreSQL needs no text search extension). The objects live in the first schema of the
    connection's search_path.
    """
    from chat_recall.adapters.postgres import setup as pg_setup
    from chat_recall.adapters.postgres.audit import PostgresIndexAudit
    from chat_recall.adapters.postgres.database import PostgresDatabase
    from chat_recall.adapters.postgres.dirty_queue import PostgresDirtyQueue
    from chat_recall.adapters.postgres.host_writer import PostgresHostWriter
    from chat_recall.adapters.postgres.index_store import PostgresIndexStore
    from chat_recall.adapters.postgres.message_repo import PostgresMessageRepo
    from chat_recall.adapters.postgres.unit_of_work import PostgresIndexUnitOfWork
    from chat_recall.adapters.postgres.vector_store import PostgresVectorStore

    database = PostgresDatabase(dsn, schema or HostSchema.reference())
    if pool_size is not None:
        database.pool_size = pool_size
    try:
        database.probe()
        if create_host_schema:
            pg_setup.create_reference_schema(database)
        analysis = pg_setup.analysis_of(database, analysis, language)
        if install:
            pg_setup.start(database, analysis)
        else:
            pg_setup.verify(database, analysis)
    except BaseException:
        database.close()
        raise
    from chat_recall.application.indexer import IndexerSettings
    from chat_recall.domain.indexing import BatchSizing

    container = _container(policy, tools)
    container.register(TextAnalysis, instance=analysis)
    container.register(PostgresDatabase, instance=database)
    container.register(MessageRepo, PostgresMessageRepo, scope=punq.Scope.singleton)
    _alias(container, IndexStore, PostgresIndexStore)
    container.register(IndexUnitOfWork, PostgresIndexUnitOfWork, scope=punq.Scope.singleton)
    container.register(DirtyQueue, PostgresDirtyQueue, scope=punq.Scope.singleton)
    container.register(HostWriter, PostgresHostWriter, scope=punq.Scope.singleton)
    container.register(IndexAudit, PostgresIndexAudit, scope=punq.Scope.singleton)
    container.register(VectorStore, PostgresVectorStore, scope=punq.Scope.singleton)
    # PostgreSQL locks rows, not the database: an indexer batch holds only the markers
    # it claims (a host write to one of those messages waits for its commit), so batches
    # may take longer than SQLite's budget and pay the server round trips once per more rows.
    sizing = BatchSizing(budget_seconds=0.1, initial=64, maximum=512)
    settings = settings or IndexerSettings(sizing=sizing)
    recorded = container.resolve(VectorStore).semantic_settings()
    embedding = _wire_semantic(container, semantic, recorded, writable=install)

    def imports() -> ImportTarget:
        from chat_recall.adapters.postgres.import_target import postgres_import_target

        return postgres_import_target(database)

    recall = _finish(container, settings, overrides or {}, imports, embedding=embedding)
    recall.on_close(database.close)
    return recall


def _wire_tantivy(
    container: punq.Container, database: SqliteDatabase, analysis: TextAnalysis, *, install: bool
) -> Callable[[], None]:
    """The tantivy engine's ports over `database` (imported here: an optional extra)."""
    try:
        from chat_recall.adapters.tantivy import index_store as tantivy_store
        from chat_recall.adapters.tantivy.dirty_queue import TantivyDirtyQueue
        from chat_recall.adapters.tantivy.engine import TantivyIndexes
        from chat_recall.adapters.tantivy.unit_of_work import TantivyIndexUnitOfWork
    except ImportError as error:
        raise IndexUnavailable(
            "the tantivy engine needs chat-recall's tantivy extra (from a checkout: "
            "pip install '.[tantivy]')"
        ) from error
    if database.path is None:
        raise IndexUnavailable("the tantivy engine needs a database file, not :memory:")
    if install:
        tantivy_store.install(database)
    index = tantivy_store.TantivyIndexStore(
        database, TantivyIndexes.acquire(engines.tantivy_directory(database.path)), analysis
    )
    container.register(IndexStore, instance=index)
    container.register(IndexUnitOfWork, instance=TantivyIndexUnitOfWork(index))
    container.register(DirtyQueue, TantivyDirtyQueue, scope=punq.Scope.singleton)
    from chat_recall.adapters.tantivy.audit import TantivyIndexAudit

    container.register(
        IndexAudit,
        instance=TantivyIndexAudit(database, engines.tantivy_directory(database.path)),
    )
    return index.close


def _sqlite_file_audit(database: SqliteDatabase) -> IndexAudit:
    """The audit of the engine that built a file's index (FTS5's when none is recorded),
    for `administration`: the host database's admin imports no engine."""
    if database.path is not None and engines.recorded_engine(database) is Engine.TANTIVY:
        from chat_recall.adapters.tantivy.audit import TantivyIndexAudit

        return TantivyIndexAudit(database, engines.tantivy_directory(database.path))
    from chat_recall.adapters.sqlite.audit import SqliteIndexAudit

    return SqliteIndexAudit(database, SqliteFts5IndexStore(database))


def administration(target: HostDatabase, schema: HostSchema) -> IndexAdministration:
    """The admin port of a host database (`adapters/administration.py`): the SQLite
    file's (whichever engine holds its text) or PostgreSQL's, each with the facade its
    `status` reads figures through (opened on an installed index, writing nothing)."""
    from chat_recall.adapters.host_database import SqliteFile

    if isinstance(target, SqliteFile):
        from chat_recall.adapters.sqlite_host.admin import SqliteAdministration

        path = target.path
        return SqliteAdministration(
            path,
            schema,
            _sqlite_file_audit,
            lambda: sqlite(path, schema=schema, install=False, engine=None),
        )
    from chat_recall.adapters.postgres.admin import PostgresAdministration

    url = target.url
    return PostgresAdministration(url, schema, lambda: postgres(url, schema=schema, install=False))


def in_memory(
    *,
    database: InMemoryDatabase | None = None,
    policy: MarkupPolicy = DEFAULT_POLICY,
    settings: IndexerSettings | None = None,
    tools: ToolSettings | None = None,
    analysis: TextAnalysis | None = None,
    overrides: Overrides | None = None,
    language: Language | None = None,
    semantic: Semantic | None = None,
) -> ChatRecall:
    """chat-recall over in-memory adapters that rank exactly as SQLite FTS5; the host
    writes through `recall.host` (an `InMemoryHostStore`). `language` and `analysis`
    as for `sqlite` (a `database` given keeps the language it records)."""
    # Imported here: a SQLite deployment (and every CLI call) never loads them.
    from chat_recall.adapters.memory.audit import InMemoryIndexAudit
    from chat_recall.adapters.memory.database import InMemoryDatabase, InMemoryHostStore
    from chat_recall.adapters.memory.dirty_queue import InMemoryDirtyQueue
    from chat_recall.adapters.memory.index_store import InMemoryIndexStore, prepare_analysis
    from chat_recall.adapters.memory.message_repo import InMemoryMessageRepo
    from chat_recall.adapters.memory.unit_of_work import InMemoryIndexUnitOfWork
    from chat_recall.adapters.memory.vector_store import InMemoryVectorStore

    database = database or InMemoryDatabase()
    analysis = prepare_analysis(database, analysis, language)
    container = _container(policy, tools)
    container.register(TextAnalysis, instance=analysis)
    container.register(InMemoryDatabase, instance=database)
    container.register(MessageRepo, InMemoryMessageRepo, scope=punq.Scope.singleton)
    _alias(container, IndexStore, InMemoryIndexStore)
    container.register(IndexUnitOfWork, InMemoryIndexUnitOfWork, scope=punq.Scope.singleton)
    container.register(DirtyQueue, InMemoryDirtyQueue, scope=punq.Scope.singleton)
    container.register(HostWriter, InMemoryHostStore, scope=punq.Scope.singleton)
    container.register(IndexAudit, InMemoryIndexAudit, scope=punq.Scope.singleton)
    container.register(VectorStore, InMemoryVectorStore, scope=punq.Scope.singleton)
    recorded = database.meta.get("semantic_settings")
    embedding = _wire_semantic(container, semantic, recorded, writable=True)

    def imports() -> ImportTarget:
        from chat_recall.adapters.memory.import_target import InMemoryImportTarget

        return InMemoryImportTarget(database)

    return _finish(container, settings, overrides or {}, imports, embedding=embedding)


def custom(
    *,
    repo: MessageRepo,
    index: IndexStore,
    unit_of_work: IndexUnitOfWork,
    dirty: DirtyQueue,
    host: HostWriter,
    audit: IndexAudit | None = None,
    policy: MarkupPolicy = DEFAULT_POLICY,
    settings: IndexerSettings | None = None,
    tools: ToolSettings | None = None,
    overrides: Overrides | None = None,
) -> ChatRecall:
    """chat-recall over a third party's storage adapter: pass instances of the five
    storage ports (and an `IndexAudit`, if the adapter has one); everything else is
    wired as for the shipped adapters."""
    from chat_recall.adapters.unchecked_audit import UncheckedIndexAudit

    container = _container(policy, tools)
    container.register(MessageRepo, instance=repo)
    container.register(IndexStore, instance=index)
    container.register(IndexUnitOfWork, instance=unit_of_work)
    container.register(DirtyQueue, instance=dirty)
    container.register(HostWriter, instance=host)
    container.register(IndexAudit, instance=audit or UncheckedIndexAudit())
    return _finish(container, settings, overrides or {}, vectors=False)
