"""The port-level error hierarchy. Adapters translate driver errors into these with
`raise ... from error`; the tools turn them into structured results."""

from __future__ import annotations


class ChatRecallError(Exception):
    """Base of every error chat-recall raises on purpose."""

    kind = "internal"


class NotFound(ChatRecallError):
    """No such chat or message in this app. Missing, other-app and mismatched ids all
    raise this, with the same message, so none can be told apart."""

    kind = "not_found"

    def __init__(self, message: str = "no such chat or message in this app") -> None:
        super().__init__(message)


class InvalidArguments(ChatRecallError):
    """Tool or API arguments that break a documented rule."""

    kind = "invalid_arguments"


class IndexUnavailable(ChatRecallError):
    """The derived index cannot be used: FTS5 missing, not installed, or the database
    cannot be read."""

    kind = "index_unavailable"


class StorageUnavailable(IndexUnavailable):
    """The database cannot be opened where it was said to be: no file there, a
    directory that does not exist, a file that is no database or cannot be read. The
    message names the path and the fix; `path` and `fix` hold them apart."""

    kind = "storage_unavailable"

    def __init__(self, path: str, problem: str, fix: str) -> None:
        super().__init__(f"{problem} ({fix})" if fix else problem)
        self.path = path
        self.fix = fix


class SchemaMismatch(ChatRecallError):
    """The host schema mapping does not fit the database; the message names the
    missing table or column."""

    kind = "schema_mismatch"

    @classmethod
    def missing_column(cls, table: str, column: str) -> SchemaMismatch:
        return cls(
            f"host table {table!r} has no column {column!r} (a mapping file, --schema, "
            "names the host's tables and columns)"
        )

    @classmethod
    def text_id(cls, table: str, column: str, declared: str) -> SchemaMismatch:
        return cls(
            f"host column {table}.{column} is declared {declared}: chat-recall needs "
            "integer ids and app ids; text ids such as UUIDs are not supported"
        )


class StorageError(ChatRecallError):
    """Any other failure of the storage driver."""

    kind = "storage_error"


class StorageBusy(StorageError):
    """Another connection holds the lock longer than the busy timeout: nothing is
    wrong with the data; the operation is retried later."""

    kind = "storage_busy"


class StorageDamaged(StorageError):
    """The storage reports damaged data (a corrupt page or index structure). The
    derived index can be dropped and rebuilt (`chat-recall rebuild`); the host's own
    tables are never touched by chat-recall."""

    kind = "storage_damaged"

    def __init__(self, message: str, *, app_id: int | None = None) -> None:
        super().__init__(message)
        # The one app whose index is damaged, when the storage can tell: it sets that
        # index aside, so the work that met the damage is done again at once without it.
        self.app_id = app_id


class TransactionOverTime(StorageError):
    """A write transaction was still open at its time limit and was abandoned: it was
    rolled back whole, nothing of it was written. The work is done again in smaller
    parts (the limit keeps the host's writes from waiting long behind it)."""

    kind = "storage_over_time"


# Failures that are not about any one row: an indexer batch that fails with one of
# these is retried whole, later, never split to find a poison row.
SYSTEMIC_ERRORS: tuple[type[ChatRecallError], ...] = (
    StorageBusy,
    StorageDamaged,
    IndexUnavailable,
    SchemaMismatch,
)


class StorageReadOnly(IndexUnavailable):
    """This process cannot write the database (a read-only file, directory or file
    system): the tools still read it, but the index cannot be advanced here."""


class MissingExtra(IndexUnavailable):
    """A feature that needs one of chat-recall's optional extras was asked for without
    it installed; `extra` names it, the message says how to install it."""

    def __init__(self, extra: str, message: str) -> None:
        super().__init__(message)
        self.extra = extra


class EmbeddingFailed(ChatRecallError):
    """The embedding model could not run: a model file that does not load, a remote
    service that does not answer or answers with something that is no vector. Search
    answers from words alone meanwhile; the indexer retries its vectors later."""

    kind = "embedding_failed"


class EmbeddingUnavailable(ChatRecallError):
    """The semantic layer is configured but cannot start here: its extra is not
    installed, or the named model directory is missing or of another shape."""

    kind = "embedding_unavailable"
