"""The host schema: table and column names of the host's chats and messages.

Out of the box chat-recall knows the reference host's schema and can create it for
standalone use; a host with other names describes them in a `HostSchema`, which is
checked against the database at start. Neutral: every engine reads the host through it,
so it lives outside the engine packages (which never import each other).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Mapping

import attrs

from chat_recall.domain.errors import SchemaMismatch
from chat_recall.domain.host_values import TimestampFormat
from chat_recall.domain.messages import Role

# A host's own role names (`HostSchema.roles`): plain words, so they go into SQL as
# literals on every engine (no quote, no placeholder character).
ROLE_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def quote(identifier: str) -> str:
    """A safely quoted SQL identifier."""
    return '"' + identifier.replace('"', '""') + '"'


def _role_names(
    value: Mapping[str, str] | Iterable[tuple[str, str]],
) -> tuple[tuple[str, Role], ...]:
    """`{"human": "user", "ai": "assistant"}` (or its pairs) as (name, Role) pairs in
    the order given; ValueError for a name that is no plain word or a role that is
    neither."""
    pairs = value.items() if isinstance(value, Mapping) else value
    names: dict[str, Role] = {}
    for name, role in pairs:
        if not isinstance(name, str) or not ROLE_NAME.fullmatch(name):
            raise ValueError(f"roles: {name!r} is not a role name (letters, digits, _.:-)")
        names[name] = Role(role.value if isinstance(role, Role) else role)
    return tuple(names.items())


@attrs.frozen
class HostSchema:
    chats: str = "chats"
    chat_id: str = "id"
    chat_app_id: str = "app_id"
    chat_title: str = "title"
    chat_created_at: str = "created_at"
    messages: str = "messages"
    message_id: str = "id"
    message_chat_id: str = "chat_id"
    message_role: str = "role"
    message_content: str = "content"
    message_created_at: str = "created_at"
    # None when the host has no compaction flag: every message counts as not a summary.
    message_is_compaction_summary: str | None = "is_compaction_summary"
    # How both created_at columns store time (`domain.host_values`: unix_seconds,
    # unix_milliseconds, iso_8601, or auto: numbers from 10^11 up are milliseconds).
    timestamps: TimestampFormat = attrs.field(
        default=TimestampFormat.AUTO, converter=TimestampFormat
    )
    # The host's own names for the two roles indexed, besides 'user' and 'assistant'
    # themselves: a host storing 'User', or LangChain's 'human' and 'ai', maps them here
    # (`{"human": "user", "ai": "assistant"}`). Messages of any other role are never
    # indexed (`status` counts them under `not_indexed`).
    roles: tuple[tuple[str, Role], ...] = attrs.field(default=(), converter=_role_names)

    @classmethod
    def reference(cls) -> HostSchema:
        return cls()

    def fingerprint(self) -> str:
        """Changes whenever the mapping may change what is read from the host rows."""
        import hashlib  # here: only the indexer's stamp needs it, not every CLI start

        fields = attrs.asdict(self, value_serializer=lambda _, __, v: getattr(v, "value", v))
        if not self.roles:  # as before the field existed: no index re-projects for it
            del fields["roles"]
        digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8"))
        return digest.hexdigest()[:12]

    def chat_columns(self) -> tuple[str, ...]:
        return (self.chat_id, self.chat_app_id, self.chat_title, self.chat_created_at)

    def message_columns(self) -> tuple[str, ...]:
        columns: tuple[str, ...] = (
            self.message_id,
            self.message_chat_id,
            self.message_role,
            self.message_content,
            self.message_created_at,
        )
        if self.message_is_compaction_summary is not None:
            columns += (self.message_is_compaction_summary,)
        return columns

    def q(self, name: str) -> str:
        """The quoted identifier of one of this schema's attributes."""
        value = getattr(self, name)
        assert isinstance(value, str)
        return quote(value)

    def role_expression(self, alias: str) -> str:
        """The message's role as chat-recall names it ('user', 'assistant', or the host's
        value when the mapping names neither): read and filter through this."""
        column = f"{alias}.{self.q('message_role')}"
        if not self.roles:
            return column
        cases = " ".join(f"WHEN '{name}' THEN '{role.value}'" for name, role in self.roles)
        return f"(CASE {column} {cases} ELSE {column} END)"

    def stored_role(self, role: Role) -> str:
        """What chat-recall writes for a role (import, the host writer): the host's first
        name for it, else the role's own."""
        return next((name for name, mapped in self.roles if mapped is role), role.value)

    def compaction_expression(self, alias: str) -> str:
        """0 or 1 whatever the flag column holds (NULL, numbers, even odd text)."""
        if self.message_is_compaction_summary is None:
            return "0"
        flag = f"{alias}.{quote(self.message_is_compaction_summary)}"
        return f"(CASE WHEN COALESCE({flag}, 0) THEN 1 ELSE 0 END)"

    def verify(self, connection: sqlite3.Connection) -> None:
        """Raise SchemaMismatch naming the first missing table or column, or the first id
        column not declared as an integer. Ids must be integers: the triggers copy them
        into chat-recall's INTEGER PRIMARY KEY columns inside the host's own statements,
        where a text id would make the host's write fail ("datatype mismatch"); so such
        a host is refused before any trigger exists."""
        for table, columns, ids in (
            (self.chats, self.chat_columns(), (self.chat_id, self.chat_app_id)),
            (self.messages, self.message_columns(), (self.message_id, self.message_chat_id)),
        ):
            declared = {
                row[1]: str(row[2] or "")
                for row in connection.execute(f"PRAGMA table_info({quote(table)})")
            }
            if not declared:
                raise SchemaMismatch(f"host table {table!r} does not exist")
            for column in columns:
                if column not in declared:
                    raise SchemaMismatch.missing_column(table, column)
            for column in ids:
                if "INT" not in declared[column].upper():  # SQLite's rule for INTEGER affinity
                    raise SchemaMismatch.text_id(
                        table, column, declared[column] or "without a type"
                    )
