"""The admin port: chat-recall's maintenance inside one host database, as the CLI's
`init`, `install`, `uninstall`, `rebuild`, `import`, `status` and `repair` run it, and
the reports it returns (data only: the CLI renders them).

The port lives here, among the adapters, not in `domain/ports.py`: the application
never calls it (the CLI does), and its reports speak of the technology (schema
versions, triggers, write locks, where an engine keeps its files). Each engine has one
implementation: `SqliteAdministration` (`adapters/sqlite_host/admin.py`: a SQLite file,
whichever engine holds its text) and `PostgresAdministration`
(`adapters/postgres/admin.py`); `bootstrap.administration` picks one for a
`HostDatabase`. The contract suite is `contracts/administration.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

import attrs

from chat_recall.application.write_lock import WriteLockStats
from chat_recall.domain.indexing import index_stamp
from chat_recall.domain.model import AppId
from chat_recall.domain.schema_version import reported_version
from chat_recall.domain.text.language import Language

if TYPE_CHECKING:
    from chat_recall.adapters.sqlite_host.engines import Engine
    from chat_recall.application.importing import ImportReport, ImportTarget
    from chat_recall.application.service import ChatRecall

QUARANTINE_SHOWN = 20


@attrs.frozen
class InstallReport:
    previous_version: int  # 0: chat-recall was not installed before
    version: int
    messages_to_index: int
    seconds: float
    write_lock: WriteLockStats  # how long host writers had to wait for this
    language: Language = Language.default()  # whose word families the index joins


@attrs.frozen
class InitReport:
    created_file: bool
    created_host_tables: bool
    install: InstallReport


@attrs.frozen
class UninstallReport:
    dropped: tuple[str, ...]
    seconds: float
    write_lock: WriteLockStats
    # Damaged objects removed from the schema because DROP failed on them: their pages
    # stay allocated in the file until the host runs VACUUM.
    forced: tuple[str, ...] = ()


@attrs.frozen
class StampStatus:
    """The index stamp (projection, value reader, host mapping): a change re-indexes."""

    stored: str | None
    current: str
    rebuild_pending: bool


@attrs.frozen
class BacklogStatus:
    messages: int
    chats: int
    purges: int


@attrs.frozen
class AppStatus:
    app_id: int
    documents: int
    deleted_awaiting_maintenance: int


@attrs.frozen
class QuarantinedStatus:
    message_id: int
    app_id: int | None
    reason: str


@attrs.frozen
class NotIndexedStatus:
    """Host messages no index holds by design, and why (`SqliteMessageRepo.never_indexed`)."""

    reason: str
    messages: int


@attrs.frozen
class CheckStatus:
    """One check of the derived index (`domain.model.Finding`): what it covered, and
    when it failed, the problem and its fix (`repair`: `chat-recall repair` or `index`;
    `rebuild`; `upgrade`)."""

    check: str
    subject: str
    ok: bool
    problem: str | None
    fix: str | None


@attrs.frozen
class SemanticStatus:
    """The semantic layer's model, how far its vectors cover the visible messages, how
    many wait for one (`backlog`), and where text goes (None: nowhere, it is local)."""

    model: str | None
    embedded: int
    backlog: int
    coverage: float
    sends_text_to: str | None

    @classmethod
    def of(cls, recall: ChatRecall) -> SemanticStatus | None:
        settings = recall.vectors.semantic_settings()
        if settings is None and recall.vectors.vector_model() is None:
            return None
        from chat_recall.adapters.semantic import Semantic

        destination = None if settings is None else Semantic.from_record(settings).destination
        coverage = recall.vectors.vector_coverage(None)
        return cls(
            coverage.model,
            coverage.embedded,
            coverage.pending,
            round(coverage.fraction, 4),
            destination,
        )


@attrs.frozen
class StatusReport:
    """What `chat-recall status` shows. Data only: the CLI renders it as JSON or text,
    generically, so a new field shows up in every format without touching the CLI.

    Gathered on read-only connections: status never takes the write lock and works on
    a database this process cannot write. When the schema version cannot be used (a
    newer release, or no version at all) the figures that depend on it are None and
    `checks` says why."""

    database: str
    schema_version: int | str | None  # as stored: None when not installed
    release_schema_version: int
    index_stamp: StampStatus | None
    backlog: BacklogStatus | None
    apps: list[AppStatus]
    quarantined: int | None  # host rows set aside as unreadable (the first ones below)
    quarantined_rows: list[QuarantinedStatus]
    # host messages chat-recall never indexes: other roles, no chat (not a problem)
    not_indexed: list[NotIndexedStatus]
    checks: list[CheckStatus]
    problems: list[str]
    # whose word families the index joins (`Language`; None: not installed)
    language: str | None = None
    # The semantic layer (None while it is off and was never on).
    semantic: SemanticStatus | None = None

    @classmethod
    def checked(
        cls, database: str, stored: object, release: int, checks: list[CheckStatus]
    ) -> StatusReport:
        """The stored version and the drift checks; the index figures follow
        (`with_index`) when the version can be used."""
        return cls(
            database=database,
            schema_version=reported_version(stored),
            release_schema_version=release,
            index_stamp=None,
            backlog=None,
            apps=[],
            quarantined=None,
            quarantined_rows=[],
            not_indexed=[],
            checks=checks,
            problems=[f"{c.subject}: {c.problem}" for c in checks if not c.ok],
        )

    def with_index(self, recall: ChatRecall, app_ids: Iterable[int]) -> StatusReport:
        """The engine-neutral figures, read through the facade (with the policy the
        bootstrap builds, so the stamp compares like with like)."""
        index = recall.index
        backlog = recall.dirty.backlog()
        stored_stamp = index.projection_stamp()
        current = index_stamp(recall.policy, recall.repo.source_fingerprint())
        quarantine = index.quarantine(QUARANTINE_SHOWN)
        apps = []
        for app_id in app_ids:
            stats = index.stats(AppId(app_id))
            apps.append(AppStatus(app_id, stats.documents, stats.unreclaimed))
        return attrs.evolve(
            self,
            language=index.analysis.language.value,
            semantic=SemanticStatus.of(recall),
            index_stamp=StampStatus(stored_stamp, current, stored_stamp != current),
            backlog=BacklogStatus(backlog.messages, backlog.chats, backlog.purges),
            apps=apps,
            quarantined=quarantine.total,
            quarantined_rows=[
                QuarantinedStatus(row.message_id, row.app_id, row.reason.value)
                for row in quarantine.rows
            ],
        )

    @property
    def healthy(self) -> bool:
        return not self.problems


@attrs.frozen
class RepairReport:
    done: tuple[str, ...]
    seconds: float


class IndexAdministration(Protocol):
    """chat-recall's maintenance inside one host database (bound to it and its schema
    mapping). Each call opens the database, does one job, closes it and returns a
    report; none prints. None creates a database it was not asked to create, and host
    tables and rows are never changed but by an import."""

    def initialise(self, language: Language | None = None) -> InitReport:
        """A standalone database: the reference host tables (unless there) and the index
        (under `language`; None: the one it records, else English)."""
        ...

    def install(self, language: Language | None = None) -> InstallReport:
        """Install the index, idempotently (a language other than the one recorded
        re-indexes in the background)."""
        ...

    def recorded_language(self) -> Language | None:
        """The language the index records (None when nothing is installed or recorded)."""
        ...

    def recorded_engine(self) -> Engine | None:
        """The engine that built the index, for a database whose text more than one
        engine can hold (None: nothing recorded, or a database with one engine)."""
        ...

    def uninstall(self, *, keep_imports: bool = False) -> UninstallReport:
        """Drop every derived object (and what an engine keeps beside the database);
        `keep_imports` (a rebuild) keeps the links of imported history, so importing it
        again updates rather than duplicates."""
        ...

    def import_history(self, run: Callable[[ImportTarget], ImportReport]) -> ImportReport:
        """`run` an import into the host tables (`application.importing`); with the
        reference schema they (and the index) are created first."""
        ...

    def status(self) -> StatusReport:
        """Checks first, then the engine-neutral figures when the installed version can
        be used; read-only throughout (never takes a write lock), and a problem found is
        a check in the report, never an exception."""
        ...

    def repair(self) -> RepairReport:
        """Restore what drifted in place (triggers, registry); damaged index data, or a
        schema version this release cannot use, needs a rebuild instead."""
        ...

    def registered_apps(self, recall: ChatRecall) -> list[int]:
        """The apps the index holds, as `status` lists them (read through `recall`, a
        facade over this database)."""
        ...
