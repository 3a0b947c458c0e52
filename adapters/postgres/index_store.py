"""`PostgresIndexStore`: the derived documents in one table with a GIN-indexed
`tsvector`, scored by a BM25 form in SQL.

- `chat_recall_docs`: one row per document: metadata, the index text (title, body),
  the number of terms, and the `tsvector` (`text_search.document_vector`: the domain's
  terms, title on weight A, body on D, plus the app's lexeme).
- `chat_recall_apps`: per app, the documents and terms counted by the writes, the
  collection statistics of the score (as FTS5's, documents the host deleted count
  until maintenance reclaims them).
- Visibility: every read joins the live host rows (the message in that chat, the chat
  in that app), so a message or chat the host deleted, or moved to another chat or
  app, is never returned once the host's transaction committed, whatever the indexer
  is doing. Maintenance reclaims such documents later from the triggers' tombstones.

Score of a match (higher is better): for each phrase i of the query that the document
holds, idf_i * sat(ts_rank_i), summed; idf_i = ln(1 + (N - n_i + 0.5) / (n_i + 0.5))
with N the app's documents and n_i the matches holding phrase i; ts_rank_i the weighted
frequency of the phrase in the document (title and body weights from the query);
sat(r) = r (k1 + 1) / (r + k1 (1 - b + b len / avglen)), k1 = 1.2, b = 0.75. A rare
term outweighs common ones, a title match outweighs a body match (the exact-phrase
bonus is applied by the domain after scoring, as for every engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import psycopg
import psycopg.sql

from chat_recall.adapters.index_layout import HIDDEN_READ_PAST, RECLAIM_PER_STEP, ROLES_SQL
from chat_recall.adapters.postgres import text_search, vector_store
from chat_recall.adapters.postgres.database import PostgresDatabase
from chat_recall.adapters.postgres.migrations import (
    APPS,
    DELETED_CHATS,
    DOCS,
    LOCK_MAINTAIN,
    META,
    PURGE,
    QUARANTINE,
    lock_key_sql,
)
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.messages import Role
from chat_recall.domain.model import (
    AppId,
    Candidate,
    ChatId,
    DocumentText,
    IndexDocument,
    IndexStats,
    Maintenance,
    MessageId,
    Quarantine,
    QuarantinedRow,
)
from chat_recall.domain.query import Phrase, ScopedQuery, TermCount, VocabularyProbe
from chat_recall.domain.text.analysis import TextAnalysis

K1 = 1.2
B = 0.75
# Documents checked for a missing source per maintenance step (an orphan sweep that
# catches what no tombstone names, e.g. a batch that committed a document just after
# the host deleted its message).
SWEEP_PER_STEP = 500
SWEEP_EVERY = 64  # maintenance steps (a safety net: batches never put an unsourced row)
# Vocabulary lookups (`vocabulary`): an exact term's documents are counted up to this
# many (enough to rank suggestions by how common they are), and a prefix's lexemes
# come from at most this many of the app's newest documents holding one.
VOCABULARY_COUNT_CAP = 1_000
VOCABULARY_SAMPLE = 2_000

_META_COLUMNS = "d.chat_id, d.role, d.created_at, d.is_compaction_summary, d.projection_truncated"


@attrs.define
class PostgresIndexStore:
    database: PostgresDatabase
    # Applied here, in Python, to documents and query phrases (see text_search).
    analysis: TextAnalysis = TextAnalysis.default()
    reclaim_per_step: int = RECLAIM_PER_STEP
    sweep_per_step: int = SWEEP_PER_STEP
    _sweep_after: int | None = attrs.field(default=None, init=False)
    _steps: int = attrs.field(default=0, init=False)

    # -- visibility ----------------------------------------------------------------------

    def _visible(self, alias: str = "d") -> str:
        """Join condition: the document's message still exists in its chat, and the
        chat in the document's app (the live host rows, not a copy), and the message was
        not deleted since the document was written: a host that deleted a message and
        inserted another with its id has a live row again, while the document still
        holds the deleted text until the new one is indexed (its tombstone says so)."""
        s = self.database.schema
        return (
            f"JOIN {s.q('messages')} AS hm ON hm.{s.q('message_id')} = {alias}.message_id "
            f"AND hm.{s.q('message_chat_id')} = {alias}.chat_id "
            f"AND NOT EXISTS (SELECT 1 FROM {PURGE} AS pt "
            f"WHERE pt.message_id = {alias}.message_id) "
            f"JOIN {s.q('chats')} AS hc ON hc.{s.q('chat_id')} = {alias}.chat_id "
            f"AND hc.{s.q('chat_app_id')} = {alias}.app_id "
            f"AND {alias}.role IN ({ROLES_SQL})"  # a damaged row fails no read
        )

    def visibility_join(self, alias: str) -> str:
        """The joins that keep only visible documents (for the vector store's check)."""
        return self._visible(alias)

    # -- writing (inside a unit of work's transaction, see unit_of_work.py) -------------

    def still_sourced(
        self, connection: psycopg.Connection[Any], documents: Sequence[IndexDocument]
    ) -> list[IndexDocument]:
        """The documents whose message still exists in the chat and app they name: a
        batch that read a row before the host deleted or moved it cannot put it back."""
        if not documents:
            return []
        s = self.database.schema
        found = {
            (int(row[0]), int(row[1]), int(row[2]))
            for row in connection.execute(
                f"SELECT m.{s.q('message_id')}, m.{s.q('message_chat_id')}, "
                f"c.{s.q('chat_app_id')} FROM {s.q('messages')} AS m "
                f"JOIN {s.q('chats')} AS c ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')} "
                f"WHERE m.{s.q('message_id')} = ANY(%s)",
                ([d.message_id for d in documents],),
            )
        }
        return [d for d in documents if (d.message_id, d.chat_id, d.app_id) in found]

    def put(
        self,
        connection: psycopg.Connection[Any],
        documents: Sequence[IndexDocument],
        *,
        removed: bool = False,
    ) -> None:
        """Replace the documents (wherever they were; `removed`: the caller removed
        them already, and kept only those `still_sourced`) in two set-based statements,
        and count them into their apps' statistics."""
        if not removed:
            documents = self.still_sourced(connection, documents)
            self.remove(connection, [d.message_id for d in documents])
        if not documents:
            return
        vectors = [
            text_search.document_vector(self.analysis, d.app_id, d.title, d.body) for d in documents
        ]
        connection.execute(
            f"""
            WITH new AS (
                SELECT * FROM unnest(
                    %s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::bigint[],
                    %s::boolean[], %s::boolean[], %s::integer[], %s::text[], %s::text[],
                    %s::text[]
                ) AS n(message_id, app_id, chat_id, role, created_at, is_compaction_summary,
                       projection_truncated, terms, title, body, tsv)
            ), inserted AS (
                INSERT INTO {DOCS} (message_id, app_id, chat_id, role, created_at,
                    is_compaction_summary, projection_truncated, terms, title, body, tsv)
                SELECT message_id, app_id, chat_id, role, created_at, is_compaction_summary,
                       projection_truncated, terms, title, body, tsv::tsvector FROM new
                RETURNING app_id, terms
            )
            INSERT INTO {APPS} AS a (app_id, documents, terms)
            SELECT app_id, count(*), sum(terms) FROM inserted GROUP BY app_id
            ON CONFLICT (app_id) DO UPDATE SET documents = a.documents + EXCLUDED.documents,
                                               terms = a.terms + EXCLUDED.terms
            """,
            (
                [d.message_id for d in documents],
                [d.app_id for d in documents],
                [d.chat_id for d in documents],
                [d.role.value for d in documents],
                [d.created_at for d in documents],
                [d.is_compaction_summary for d in documents],
                [d.projection_truncated for d in documents],
                [length for _, length in vectors],
                [d.title for d in documents],
                [d.body for d in documents],
                [vector for vector, _ in vectors],
            ),
        )
        vector_store.queue_documents(connection, documents)  # each waits for its vector

    def remove(self, connection: psycopg.Connection[Any], message_ids: Sequence[MessageId]) -> None:
        """Remove documents (and their tombstones, their counts); a message put or
        removed is out of quarantine too."""
        if not message_ids:
            return
        connection.execute(
            f"""
            WITH gone AS (
                DELETE FROM {DOCS} WHERE message_id = ANY(%(ids)s) RETURNING app_id, terms
            ), counted AS (
                SELECT app_id, count(*) AS documents, sum(terms) AS terms
                FROM gone GROUP BY app_id
            ), tombstones AS (
                DELETE FROM {PURGE} WHERE message_id = ANY(%(ids)s)
            ), quarantined AS (
                DELETE FROM {QUARANTINE} WHERE message_id = ANY(%(ids)s)
            )
            UPDATE {APPS} AS a SET documents = a.documents - counted.documents,
                                   terms = a.terms - counted.terms
            FROM counted WHERE a.app_id = counted.app_id
            """,
            {"ids": list(message_ids)},
        )
        vector_store.forget_vectors(connection, message_ids)

    def set_aside(
        self, connection: psycopg.Connection[Any], rows: Sequence[QuarantinedRow]
    ) -> None:
        if not rows:
            return
        self.remove(connection, [row.message_id for row in rows])
        connection.execute(
            f"""
            INSERT INTO {QUARANTINE} (message_id, app_id, chat_id, reason)
            SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[])
            ON CONFLICT (message_id) DO UPDATE SET app_id = EXCLUDED.app_id,
                chat_id = EXCLUDED.chat_id, reason = EXCLUDED.reason
            """,
            (
                [row.message_id for row in rows],
                [row.app_id for row in rows],
                [row.chat_id for row in rows],
                [row.reason.value for row in rows],
            ),
        )

    # -- housekeeping --------------------------------------------------------------------

    def maintain(self) -> Maintenance:
        """One bounded step: reclaim up to `reclaim_per_step` documents the host deleted
        (named by the triggers' tombstones: deleted messages, deleted chats), and check
        `sweep_per_step` more documents for a missing source every `SWEEP_EVERY`
        steps. One short transaction,
        skipped when another process is doing the same (advisory lock). PostgreSQL's
        own storage (dead tuples, the GIN pending list) is autovacuum's job."""

        self._steps += 1
        sweep = self._steps % SWEEP_EVERY == 0
        waiting = self.database.read(
            lambda c: c.execute(
                f"SELECT EXISTS (SELECT 1 FROM {PURGE}) OR EXISTS (SELECT 1 FROM {DELETED_CHATS})"
            ).fetchone()
        )
        if not sweep and not (waiting and waiting[0]):
            return Maintenance()

        def step(connection: psycopg.Connection[Any]) -> Maintenance:
            locked = connection.execute(
                f"SELECT pg_try_advisory_xact_lock({lock_key_sql(LOCK_MAINTAIN)})"
            ).fetchone()
            if not locked or not locked[0]:
                return Maintenance()
            limit = self.reclaim_per_step
            ids = [
                MessageId(row[0])
                for row in connection.execute(
                    f"SELECT message_id FROM {PURGE} ORDER BY message_id LIMIT %s", (limit + 1,)
                )
            ]
            more = len(ids) > limit
            ids = ids[:limit]
            room = limit - len(ids)
            if room > 0:
                ids += self._documents_of_deleted_chats(connection, room + 1)
                more = more or len(ids) > limit
                ids = ids[:limit]
            gone = self._without_source(connection, ids)
            self.remove(connection, gone)
            # Tombstones whose documents are all reclaimed (or were never indexed); one
            # whose id the host used again keeps hiding the deleted message's document
            # until the indexer writes the new one (its put removes both).
            connection.execute(
                f"DELETE FROM {PURGE} AS p WHERE p.message_id = ANY(%s) "
                f"AND NOT EXISTS (SELECT 1 FROM {DOCS} AS d WHERE d.message_id = p.message_id)",
                (ids,),
            )
            connection.execute(
                f"DELETE FROM {DELETED_CHATS} AS t WHERE NOT EXISTS "
                f"(SELECT 1 FROM {DOCS} AS d WHERE d.chat_id = t.chat_id "
                f"AND NOT EXISTS (SELECT 1 FROM {self._message_in_chat('d')}))"
            )
            swept = self._sweep(connection) if sweep else 0
            return Maintenance(reclaimed=len(gone) + swept, more=more)

        return self.database.write(step)

    def _message_in_chat(self, alias: str) -> str:
        """The inside of an EXISTS: the document's message in its chat. `OFFSET 0`
        keeps it a per-row index probe: as an anti-join the planner may hash the whole
        host table for a bounded step."""
        s = self.database.schema
        return (
            f"{s.q('messages')} AS m WHERE m.{s.q('message_id')} = {alias}.message_id "
            f"AND m.{s.q('message_chat_id')} = {alias}.chat_id OFFSET 0"
        )

    def _documents_of_deleted_chats(
        self, connection: psycopg.Connection[Any], limit: int
    ) -> list[MessageId]:
        rows = connection.execute(
            f"SELECT d.message_id FROM {DELETED_CHATS} AS t "
            f"JOIN {DOCS} AS d ON d.chat_id = t.chat_id "
            f"WHERE NOT EXISTS (SELECT 1 FROM {self._message_in_chat('d')}) "
            "ORDER BY d.message_id LIMIT %s",
            (limit,),
        ).fetchall()
        return [MessageId(row[0]) for row in rows]

    def _without_source(
        self, connection: psycopg.Connection[Any], ids: Sequence[MessageId]
    ) -> list[MessageId]:
        """Of these documents, those whose message is gone or in another chat or app
        (a reused id keeps its new document). Outer joins from the bounded id list:
        index probes per document, never a pass over the host's tables."""
        if not ids:
            return []
        s = self.database.schema
        rows = connection.execute(
            f"SELECT d.message_id FROM {DOCS} AS d "
            f"LEFT JOIN {s.q('messages')} AS m ON m.{s.q('message_id')} = d.message_id "
            f"AND m.{s.q('message_chat_id')} = d.chat_id "
            f"LEFT JOIN {s.q('chats')} AS c ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')} "
            f"AND c.{s.q('chat_app_id')} = d.app_id "
            f"WHERE d.message_id = ANY(%s) AND c.{s.q('chat_id')} IS NULL",
            (list(ids),),
        ).fetchall()
        return [MessageId(row[0]) for row in rows]

    def _sweep(self, connection: psycopg.Connection[Any]) -> int:
        """Check the next `sweep_per_step` documents by id for a missing source; wraps
        around. Returns how many were removed."""
        rows = connection.execute(
            f"SELECT message_id FROM {DOCS} WHERE message_id > %s ORDER BY message_id LIMIT %s",
            (self._sweep_after if self._sweep_after is not None else -(2**63), self.sweep_per_step),
        ).fetchall()
        self._sweep_after = rows[-1][0] if len(rows) == self.sweep_per_step else None
        gone = self._without_source(connection, [MessageId(row[0]) for row in rows])
        self.remove(connection, gone)
        return len(gone)

    def remove_orphans(self) -> int:
        """Every document whose source is gone, and tombstones left over; one set-based
        transaction at start."""
        s = self.database.schema

        def remove(connection: psycopg.Connection[Any]) -> int:
            orphans = [
                MessageId(row[0])
                for row in connection.execute(
                    f"SELECT d.message_id FROM {DOCS} AS d WHERE NOT EXISTS ("
                    f"SELECT 1 FROM {s.q('messages')} AS m "
                    f"JOIN {s.q('chats')} AS c ON c.{s.q('chat_id')} = m.{s.q('message_chat_id')} "
                    f"WHERE m.{s.q('message_id')} = d.message_id "
                    f"AND m.{s.q('message_chat_id')} = d.chat_id "
                    f"AND c.{s.q('chat_app_id')} = d.app_id)"
                )
            ]
            self.remove(connection, orphans)
            connection.execute(
                f"DELETE FROM {PURGE} AS p WHERE NOT EXISTS "
                f"(SELECT 1 FROM {DOCS} AS d WHERE d.message_id = p.message_id)"
            )
            connection.execute(
                f"DELETE FROM {DELETED_CHATS} AS t WHERE NOT EXISTS "
                f"(SELECT 1 FROM {DOCS} AS d WHERE d.chat_id = t.chat_id)"
            )
            connection.execute(
                f"DELETE FROM {QUARANTINE} AS q WHERE NOT EXISTS (SELECT 1 FROM "
                f"{s.q('messages')} AS m WHERE m.{s.q('message_id')} = q.message_id)"
            )
            return len(orphans)

        return self.database.write(remove)

    # -- reading -------------------------------------------------------------------------

    def _tsqueries(self, phrases: tuple[Phrase, ...], terms: tuple[str, ...]) -> list[str]:
        queries = [text_search.phrase_query(self.analysis, phrase) for phrase in phrases]
        queries += [text_search.term_query(term) for term in terms]
        return [q for q in queries if q is not None]

    def search(self, query: ScopedQuery) -> list[Candidate]:
        phrases = self._tsqueries(query.match.phrases, query.match.terms)
        if not phrases:
            return []
        excluded = self._tsqueries(query.match.excluded, query.match.excluded_terms)
        wanted = text_search.none_of(text_search.any_of(phrases), excluded)
        parameters: dict[str, object] = {
            "app": query.app_id,
            "exclude": query.exclude_chat_id,
            "window": query.window,
            "match": text_search.in_app(query.app_id, wanted),
            "weights": text_search.rank_weights(query.weights),
            "k1": K1,
            "b": B,
            # the window filters the scored matches: the terms' statistics stay the app's
            "after": query.within.span()[0],
            "before": query.within.span()[1],
        }
        counts, terms = [], []
        for index, phrase in enumerate(phrases):
            parameters[f"p{index}"] = phrase
            counts.append(f"count(*) FILTER (WHERE m.tsv @@ %(p{index})s::tsquery) AS n{index}")
            idf = (
                "1.0"
                if len(phrases) == 1
                else f"ln(1 + (s.n - f.n{index} + 0.5) / (f.n{index} + 0.5))"
            )
            rank = f"ts_rank(%(weights)s::float4[], m.tsv, %(p{index})s::tsquery, 0)::float8"
            terms.append(
                f"CASE WHEN m.tsv @@ %(p{index})s::tsquery THEN {idf} * ({rank}) * (%(k1)s + 1) "
                f"/ (({rank}) + %(k1)s * (1 - %(b)s + %(b)s * m.terms / s.avg_terms)) ELSE 0 END"
            )
        sql = f"""
            WITH m AS MATERIALIZED (
                SELECT d.message_id, d.tsv, d.terms, d.created_at FROM {DOCS} AS d
                WHERE d.tsv @@ %(match)s::tsquery AND d.app_id = %(app)s
                  AND d.chat_id IS DISTINCT FROM %(exclude)s
            ), f AS (
                SELECT count(*) AS matches, {", ".join(counts)} FROM m
            ), s AS (
                SELECT GREATEST(COALESCE(a.documents, 0), f.matches, 1)::float8 AS n,
                       GREATEST(COALESCE(a.terms::float8 / NULLIF(a.documents, 0), 1), 1)
                           AS avg_terms
                FROM f LEFT JOIN {APPS} AS a ON a.app_id = %(app)s
            ), scored AS (
                SELECT m.message_id, ({" + ".join(terms)}) AS score FROM m, f, s
                WHERE m.created_at >= %(after)s AND m.created_at < %(before)s
                ORDER BY 2 DESC, 1 LIMIT %(window)s + %(past)s
            )
            SELECT r.message_id, r.score, {_META_COLUMNS}
            FROM scored AS r JOIN {DOCS} AS d ON d.message_id = r.message_id AND d.app_id = %(app)s
            {self._visible()}
            ORDER BY r.score DESC, r.message_id LIMIT %(window)s
        """
        # Documents not yet reclaimed still rank: read past as many as there may be
        # (deleted messages await in the purge list, deleted chats in theirs).
        hidden = f"""
            SELECT (SELECT count(*) FROM {PURGE} WHERE app_id = %(app)s)
                 + (SELECT count(*) FROM {DOCS} WHERE app_id = %(app)s
                    AND chat_id IN (SELECT chat_id FROM {DELETED_CHATS}))
        """

        def run(connection: psycopg.Connection[Any]) -> list[Any]:
            past = connection.execute(hidden, {"app": query.app_id}).fetchone()
            parameters["past"] = min(int(past[0] if past else 0), HIDDEN_READ_PAST)
            return connection.execute(sql, parameters).fetchall()

        rows = self.database.read(run)
        return [
            Candidate(
                message_id=MessageId(row[0]),
                score=float(row[1]),
                chat_id=ChatId(row[2]),
                role=Role(row[3]),
                created_at=int(row[4]),
                is_compaction_summary=bool(row[5]),
                projection_truncated=bool(row[6]),
            )
            for row in rows
        ]

    def vocabulary(self, probe: VocabularyProbe) -> list[TermCount]:
        """Exact terms: the app's documents holding each, found through the GIN index
        and counted up to `VOCABULARY_COUNT_CAP`. A prefix: PostgreSQL keeps no term
        dictionary that SQL can walk, so the lexemes come from `ts_stat` over the
        newest `VOCABULARY_SAMPLE` documents of the app that hold one (counted there):
        bounded work, complete for all but the largest apps."""
        terms = [t for t in probe.terms if text_search.term_query(t) is not None]
        prefix = text_search.prefix_query(probe.prefix) if probe.prefix else None
        app = text_search.app_lexeme(probe.app_id)

        def run(connection: psycopg.Connection[Any]) -> list[tuple[str, int]]:
            found: list[tuple[str, int]] = []
            if terms:
                found += connection.execute(
                    f"""
                    SELECT t.term, (SELECT count(*) FROM (
                        SELECT 1 FROM {DOCS} AS d
                        WHERE d.tsv @@ t.query::tsquery AND d.app_id = %(app)s
                        LIMIT %(cap)s) AS s)
                    FROM unnest(%(terms)s::text[], %(queries)s::text[]) AS t(term, query)
                    """,
                    {
                        "app": probe.app_id,
                        "cap": VOCABULARY_COUNT_CAP,
                        "terms": terms,
                        "queries": [
                            text_search.in_app(probe.app_id, text_search.quote_lexeme(t))
                            for t in terms
                        ],
                    },
                ).fetchall()
            if prefix is not None:
                sample = psycopg.sql.SQL(
                    "SELECT d.tsv FROM {docs} AS d WHERE d.app_id = {app} "
                    "AND d.tsv @@ {match}::tsquery ORDER BY d.message_id DESC LIMIT {size}"
                ).format(
                    docs=psycopg.sql.Identifier(DOCS),
                    app=psycopg.sql.Literal(probe.app_id),
                    match=psycopg.sql.Literal(text_search.in_app(probe.app_id, prefix)),
                    size=psycopg.sql.Literal(VOCABULARY_SAMPLE),
                )
                found += connection.execute(
                    "SELECT word, ndoc FROM ts_stat(%(sample)s) "
                    "WHERE left(word, %(length)s) = %(prefix)s AND word <> %(app)s "
                    "ORDER BY word LIMIT %(limit)s",
                    {
                        "sample": sample.as_string(connection),
                        "length": len(probe.prefix),
                        "prefix": probe.prefix,
                        "app": app,
                        "limit": probe.limit,
                    },
                ).fetchall()
            return found

        counts = {str(term): int(count) for term, count in self.database.read(run) if count}
        return [TermCount(term, counts[term]) for term in sorted(counts)]

    def documents(self, app_id: AppId, message_ids: Sequence[MessageId]) -> list[DocumentText]:
        if not message_ids:
            return []
        rows = self.database.read(
            lambda c: c.execute(
                f"SELECT d.message_id, d.title, d.body, {_META_COLUMNS} FROM {DOCS} AS d "
                f"{self._visible()} "
                "WHERE d.message_id = ANY(%s) AND d.app_id = %s ORDER BY d.message_id",
                (list(message_ids), app_id),
            ).fetchall()
        )
        return [
            DocumentText(
                message_id=MessageId(row[0]),
                title=row[1],
                body=row[2],
                chat_id=ChatId(row[3]),
                role=Role(row[4]),
                created_at=int(row[5]),
                is_compaction_summary=bool(row[6]),
                projection_truncated=bool(row[7]),
            )
            for row in rows
        ]

    def document_ids(self, app_id: AppId) -> list[MessageId]:
        rows = self.database.read(
            lambda c: c.execute(
                f"SELECT d.message_id FROM {DOCS} AS d {self._visible()} "
                "WHERE d.app_id = %s ORDER BY d.message_id",
                (app_id,),
            ).fetchall()
        )
        return [MessageId(row[0]) for row in rows]

    def stats(self, app_id: AppId) -> IndexStats:
        """Counts from the tombstones (index lookups), not a join over the host's
        tables: documents of the app, less those whose message or chat the host
        deleted (not yet reclaimed)."""

        def count(connection: psycopg.Connection[Any]) -> IndexStats:
            row = connection.execute(
                f"""
                SELECT (SELECT count(*) FROM {DOCS} WHERE app_id = %(app)s),
                       (SELECT count(*) FROM (
                            SELECT p.message_id FROM {PURGE} AS p
                            JOIN {DOCS} AS d ON d.message_id = p.message_id
                            WHERE d.app_id = %(app)s
                            UNION
                            SELECT d.message_id FROM {DELETED_CHATS} AS t
                            JOIN {DOCS} AS d ON d.chat_id = t.chat_id
                            WHERE d.app_id = %(app)s
                              AND NOT EXISTS (SELECT 1 FROM {self._message_in_chat("d")})
                       ) AS hidden)
                """,
                {"app": app_id},
            ).fetchone()
            assert row is not None
            return IndexStats(documents=int(row[0]) - int(row[1]), unreclaimed=int(row[1]))

        return self.database.read(count, snapshot=True)

    def projection_stamp(self) -> str | None:
        row = self.database.read(
            lambda c: c.execute(f"SELECT value FROM {META} WHERE key = 'projection'").fetchone()
        )
        return None if row is None else str(row[0])

    def set_projection_stamp(self, stamp: str) -> None:
        self.database.write(
            lambda c: c.execute(
                f"INSERT INTO {META} (key, value) VALUES ('projection', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (stamp,),
            )
        )

    def quarantine(self, limit: int) -> Quarantine:
        s = self.database.schema
        live = (
            f"FROM {QUARANTINE} AS q WHERE EXISTS (SELECT 1 FROM {s.q('messages')} AS m "
            f"WHERE m.{s.q('message_id')} = q.message_id)"
        )

        def read(connection: psycopg.Connection[Any]) -> Quarantine:
            total = connection.execute(f"SELECT count(*) {live}").fetchone()
            rows = connection.execute(
                f"SELECT q.message_id, q.app_id, q.chat_id, q.reason {live} "
                "ORDER BY q.message_id LIMIT %s",
                (limit,),
            ).fetchall()
            return Quarantine(
                int(total[0]) if total else 0,
                tuple(QuarantinedRow(MessageId(r[0]), r[1], r[2], reason_of(r[3])) for r in rows),
            )

        return self.database.read(read, snapshot=True)


def reason_of(stored: str) -> UnreadableReason:
    try:
        return UnreadableReason(stored)
    except ValueError:
        return UnreadableReason.INDEXING_FAILED
