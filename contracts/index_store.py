"""`IndexStoreContract`: the derived documents, their scope, visibility and ranking."""

from __future__ import annotations

import math
import sqlite3
import sys
from functools import partial

import attrs
import pytest

from chat_recall.application.service import ChatRecall
from chat_recall.contracts.fixtures import (
    APP,
    ASSISTANT,
    EMPTY_APP,
    MISSING_MESSAGE,
    OTHER_APP,
    USER,
    HarnessLifecycle,
    seed_chat,
)
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.errors import MissingExtra
from chat_recall.domain.indexing import build_document
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, ChatId, IndexDocument, IndexStats, MessageId
from chat_recall.domain.query import MatchQuery, ScopedQuery, VocabularyProbe
from chat_recall.domain.text.analysis import Stemming, TextAnalysis
from chat_recall.domain.text.language import Language
from chat_recall.domain.time_window import TimeWindow


def search_ids(
    harness: StorageHarness, *words: str, app_id: AppId = APP, **kwargs: object
) -> list[MessageId]:
    query = ScopedQuery(MatchQuery.of_words(*words), app_id, **kwargs)  # type: ignore[arg-type]
    return [candidate.message_id for candidate in harness.recall().index.search(query)]


def reference_fts5_scores(
    documents: list[tuple[MessageId, str, str, ChatId]],
    phrases: tuple[tuple[str, ...], ...],
    analysis: TextAnalysis,
) -> dict[MessageId, float]:
    """bm25 from a real SQLite FTS5 table with the shared layout (title, body, chat_ref)
    and the tokenizer that applies `analysis`."""
    tokenizer = "unicode61 remove_diacritics 2"
    if analysis.stemming is Stemming.PORTER:
        tokenizer = f"porter {tokenizer}"
    connection = sqlite3.connect(":memory:")
    connection.execute(
        f"CREATE VIRTUAL TABLE ref USING fts5(title, body, chat_ref, tokenize = '{tokenizer}')"
    )
    # An analysis that writes its stems (a Snowball language) is given to FTS5 as them.
    written = analysis.written_text if analysis.writes_stems else str
    connection.executemany(
        "INSERT INTO ref(rowid, title, body, chat_ref) VALUES (?, ?, ?, ?)",
        [
            (rowid, written(title), written(body), f"c{chat_id}")
            for rowid, title, body, chat_id in documents
        ],
    )
    match = " OR ".join(
        '"' + " ".join(analysis.written_phrase(p)).replace('"', '""') + '"' for p in phrases
    )
    rows = connection.execute(
        "SELECT rowid, bm25(ref, 10.0, 1.0, 0.0) FROM ref WHERE ref MATCH ?",
        (f"{{title body}} : ({match})",),
    ).fetchall()
    connection.close()
    return {rowid: score for rowid, score in rows}


class IndexStoreContract(HarnessLifecycle):
    def test_search_is_scoped_to_one_app(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (mine,) = seed_chat(recall.host, APP, "Auth", [(USER, "we picked argon2 hashing")])
        seed_chat(recall.host, OTHER_APP, "Auth", [(USER, "we picked argon2 hashing")])
        recall.indexer.run_until_idle()
        assert search_ids(harness, "argon2", app_id=APP) == [mine]
        assert len(search_ids(harness, "argon2", app_id=OTHER_APP)) == 1
        assert search_ids(harness, "argon2", app_id=EMPTY_APP) == []

    def test_titles_are_searchable_and_weigh_more(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (in_title,) = seed_chat(recall.host, APP, "Payments", [(USER, "hello there")])
        _, (in_body,) = seed_chat(recall.host, APP, "Misc", [(USER, "payments later maybe")])
        recall.indexer.run_until_idle()
        assert search_ids(harness, "payments") == [in_title, in_body]

    def test_the_current_chat_is_excluded_inside_the_window(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        current, _ = seed_chat(recall.host, APP, "noise", [(USER, "deploy deploy deploy")] * 5)
        _, (other,) = seed_chat(recall.host, APP, "old", [(USER, "we deploy with fly")])
        recall.indexer.run_until_idle()
        assert search_ids(harness, "deploy", exclude_chat_id=current, window=2) == [other]

    def test_a_rare_old_match_is_not_starved_by_common_new_ones(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        _, (old,) = seed_chat(recall.host, APP, "old", [(USER, "the zanzibar decision")], 10)
        for index in range(30):
            seed_chat(recall.host, APP, f"new {index}", [(USER, "the decision again")], 5000)
        recall.indexer.run_until_idle()
        assert search_ids(harness, "zanzibar", "decision", window=5)[0] == old

    def test_a_time_window_is_applied_before_the_best_are_chosen(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        _, (weak,) = seed_chat(recall.host, APP, "old", [(USER, "one deploy note")], 99)
        _, (edge,) = seed_chat(recall.host, APP, "edge", [(USER, "deploy at the edge")], 199)
        current, (mine,) = seed_chat(recall.host, APP, "now", [(USER, "deploy here")], 150)
        for index in range(6):  # stronger matches, outside the window
            seed_chat(recall.host, APP, f"new {index}", [(USER, "deploy deploy deploy")], 500)
        recall.indexer.run_until_idle()
        window = TimeWindow(100, 200)  # the messages are written at 100, 151 and 200
        assert search_ids(harness, "deploy", window=2, within=window) == [mine, weak]
        assert search_ids(harness, "deploy", within=window, exclude_chat_id=current) == [weak]
        assert set(search_ids(harness, "deploy", within=TimeWindow(101, 201))) == {edge, mine}
        assert search_ids(harness, "deploy", within=TimeWindow(None, 100)) == []
        assert len(search_ids(harness, "deploy", within=TimeWindow(500, None))) == 6

    def test_deleted_messages_and_chats_vanish_before_the_indexer_runs(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        _, (a1, a2) = seed_chat(recall.host, APP, "a", [(USER, "kiwi"), (ASSISTANT, "kiwi")])
        chat_b, (b1,) = seed_chat(recall.host, APP, "b", [(USER, "kiwi")])
        recall.indexer.run_until_idle()
        recall.host.delete_message(a1)
        assert sorted(search_ids(harness, "kiwi")) == sorted([a2, b1])
        recall.host.delete_chat(chat_b)
        assert search_ids(harness, "kiwi") == [a2]
        assert recall.index.stats(APP).documents == 1
        if harness.capabilities.deferred_reclaim:
            assert recall.index.stats(APP).unreclaimed == 2  # still weighing in until then
        while recall.index.maintain().more:
            pass
        assert recall.index.stats(APP) == IndexStats(documents=1, unreclaimed=0)
        assert recall.index.document_ids(APP) == [a2]

    def test_deleted_documents_never_take_a_visible_matchs_place(
        self, harness: StorageHarness
    ) -> None:
        """Before they are reclaimed, deleted documents still rank in the engine: a
        search reads past them, so a window is never left short of visible matches."""
        recall = harness.recall()
        strong = [(USER, "axolotl axolotl axolotl")] * 40  # past any margin of an engine
        deleted_chat, _ = seed_chat(recall.host, APP, "axolotl", strong)
        _, (deleted_one,) = seed_chat(recall.host, APP, "axolotl", [(USER, "axolotl axolotl")])
        _, (live,) = seed_chat(recall.host, APP, "x", [(USER, "an axolotl among other words")])
        recall.indexer.run_until_idle()
        recall.host.delete_chat(deleted_chat)
        recall.host.delete_message(deleted_one)
        assert search_ids(harness, "axolotl", window=3) == [live]

    def test_documents_of_deleted_messages_are_never_returned(
        self, harness: StorageHarness
    ) -> None:
        """`documents` is where excerpts come from: a message the host deleted has
        none, before maintenance and after a restart alike."""
        recall = harness.recall()
        _, (gone, kept) = seed_chat(recall.host, APP, "T", [(USER, "a"), (USER, "b")])
        other_chat, (in_gone_chat,) = seed_chat(recall.host, APP, "U", [(USER, "c")])
        recall.indexer.run_until_idle()
        recall.host.delete_message(gone)
        recall.host.delete_chat(other_chat)
        asked = [gone, kept, in_gone_chat]
        assert [d.message_id for d in recall.index.documents(APP, asked)] == [kept]
        assert sorted(search_ids(harness, "a", "b", "c")) == [kept]
        if harness.capabilities.durable:
            reopened = harness.reopen()
            assert [d.message_id for d in reopened.index.documents(APP, asked)] == [kept]
            query = ScopedQuery(MatchQuery.of_words("a", "b", "c"), APP)
            assert [c.message_id for c in reopened.index.search(query)] == [kept]

    def test_search_returns_at_most_its_window_best_first(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, ids = seed_chat(
            recall.host, APP, "w", [(USER, "kiwi " * count) for count in range(1, 8)]
        )
        recall.indexer.run_until_idle()
        every = search_ids(harness, "kiwi", window=50)
        assert sorted(every) == sorted(ids)
        assert search_ids(harness, "kiwi", window=3) == every[:3]
        assert search_ids(harness, "kiwi", window=1) == every[:1]

    def test_documents_hold_index_text_of_visible_documents_only(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        _, (mine,) = seed_chat(recall.host, APP, "T", [(USER, "body text")])
        _, (theirs,) = seed_chat(recall.host, OTHER_APP, "U", [(USER, "other text")])
        recall.indexer.run_until_idle()
        (document,) = recall.index.documents(APP, [mine, theirs, MISSING_MESSAGE])
        assert (document.message_id, document.title, document.body) == (mine, "T", "body text")

    def test_a_document_whose_source_is_gone_or_elsewhere_is_never_put(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        chat_id, (message_id,) = seed_chat(recall.host, APP, "T", [(USER, "kept words")])
        recall.indexer.run_until_idle()

        def document(message: int, chat: int, app: int, body: str) -> IndexDocument:
            return IndexDocument(
                message_id=MessageId(message),
                chat_id=ChatId(chat),
                app_id=AppId(app),
                role=Role.USER,
                created_at=1,
                is_compaction_summary=False,
                projection_truncated=False,
                title="",
                body=body,
            )

        with recall.unit_of_work.transaction() as writer:
            writer.put(
                [
                    document(555_555, chat_id, APP, "ghost"),  # no such message
                    document(message_id, chat_id, OTHER_APP, "elsewhere"),  # not this app
                    document(message_id, chat_id + 1, APP, "elsewhere"),  # not this chat
                ]
            )
        harness.publish_writes(recall)
        assert search_ids(harness, "ghost") == []
        assert search_ids(harness, "elsewhere") == []
        assert search_ids(harness, "elsewhere", app_id=OTHER_APP) == []
        assert search_ids(harness, "kept") == [message_id]

    def test_projection_stamp_round_trips(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        recall.index.set_projection_stamp("9:abc")
        assert recall.index.projection_stamp() == "9:abc"

    def test_ties_break_by_message_id(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        ids = [seed_chat(recall.host, APP, "same", [(USER, "tie word")])[1][0] for _ in range(4)]
        recall.indexer.run_until_idle()
        assert search_ids(harness, "tie") == sorted(ids)

    def test_scores_follow_fts5_bm25(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        texts = [
            ("Auth setup", "We decided to use sessions, not JWT. Sessions expire in 14 days."),
            ("Billing", "Stripe checkout first; sessions for the customer portal later."),
            ("Über Café", "Die Sitzung läuft nach 14 Tagen ab. login.ts bleibt."),
            ("日本語", "ユーザー認証の方式を決めた"),
            ("Noise", "sessions " * 40),
        ]
        documents = []
        for title, body in texts:
            chat_id, (message_id,) = seed_chat(recall.host, APP, title, [(USER, body)])
            documents.append((message_id, chat_id))
        recall.indexer.run_until_idle()
        stored = {d.message_id: d for d in recall.index.documents(APP, [m for m, _ in documents])}
        reference_docs = [
            (mid, stored[mid].title, stored[mid].body, chat) for mid, chat in documents
        ]
        for words in (
            ("sessions",),
            ("sessions", "jwt"),
            ("cafe", "login.ts"),
            ("認証",),
            ("session", "expired", "deciding"),
        ):
            query = MatchQuery.of_words(*words)
            expected = reference_fts5_scores(reference_docs, query.phrases, recall.index.analysis)
            found = recall.index.search(ScopedQuery(query, APP))
            assert {c.message_id for c in found} == set(expected)
            for candidate in found:
                assert candidate.score > 0.0  # higher is better, positive for a match
                if harness.capabilities.exact_fts5_scores:
                    fts5_bm25 = expected[candidate.message_id]  # FTS5: lower is better
                    assert math.isclose(candidate.score, -fts5_bm25, rel_tol=1e-9)
            assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)

    def test_phrases_match_under_the_index_analysis(self, harness: StorageHarness) -> None:
        """A stemming index finds a word's inflections as one term; a plain one only
        the word itself."""
        recall = harness.recall()
        _, (meeting,) = seed_chat(recall.host, APP, "Trip", [(USER, "we are meeting in Lisbon")])
        _, (meets,) = seed_chat(recall.host, APP, "Plan", [(USER, "she meets them in Porto")])
        recall.indexer.run_until_idle()
        stems = recall.index.analysis.stemming is Stemming.PORTER
        assert set(search_ids(harness, "meet")) == ({meeting, meets} if stems else set())
        assert set(search_ids(harness, "meeting")) == ({meeting, meets} if stems else {meeting})
        assert search_ids(harness, "Lisbon") == [meeting]
        assert search_ids(harness, "Lisbon's") == []  # the phrase `lisbon s` (see build_query)

    def test_maintenance_changes_no_result(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        for index in range(12):
            seed_chat(recall.host, APP, f"c{index}", [(USER, f"merge words {index}")])
            rows = recall.repo.source_rows([m.id for m in recall.dirty.pending_messages(100)])
            with recall.unit_of_work.transaction() as writer:
                writer.put([d for row in rows if (d := build_document(row, recall.policy))])
        harness.publish_writes(recall)
        before = recall.index.search(ScopedQuery(MatchQuery.of_words("merge"), APP))
        recall.index.maintain()
        after = recall.index.search(ScopedQuery(MatchQuery.of_words("merge"), APP))
        assert after == before
        assert len(after) == 12

    def test_excluded_phrases_and_terms_leave_documents_out_inside_the_window(
        self, harness: StorageHarness
    ) -> None:
        """`-word` in a query: what holds an excluded word is left out inside the
        storage query, so the window fills with the other matches."""
        recall = harness.recall()
        seed_chat(recall.host, APP, "a", [(USER, "deploy to staging, deploy again")] * 5)
        seed_chat(recall.host, APP, "b", [(USER, "the staging deploy box")])
        _, (wanted,) = seed_chat(recall.host, APP, "c", [(USER, "deploy to production")])
        recall.indexer.run_until_idle()
        analysis = recall.index.analysis

        def found(match: MatchQuery) -> list[MessageId]:
            query = ScopedQuery(match, APP, window=1)
            return [candidate.message_id for candidate in recall.index.search(query)]

        deploy = MatchQuery.of_words("deploy")
        assert found(attrs.evolve(deploy, excluded=(("staging",),))) == [wanted]
        assert found(attrs.evolve(deploy, excluded_terms=(analysis.term("staging"),))) == [wanted]
        phrase = attrs.evolve(deploy, excluded=(("staging", "deploy"),))  # only `b` holds it
        assert len(found(attrs.evolve(phrase, terms=()))) == 1
        assert found(attrs.evolve(deploy, excluded=(("deploy",),))) == []

    def test_a_vocabulary_term_finds_its_documents_as_it_is(self, harness: StorageHarness) -> None:
        """A term from `vocabulary` (what `prefix*` expands to) matches as the index
        holds it, whatever the engine does to a query's tokens: with stemming,
        `database` is indexed as `databas`, which Porter itself would stem to `databa`."""
        recall = harness.recall()
        _, (database,) = seed_chat(recall.host, APP, "a", [(USER, "the database migration")])
        seed_chat(recall.host, APP, "b", [(USER, "a databa and a databas")])
        recall.indexer.run_until_idle()
        term = recall.index.analysis.term("database")
        query = ScopedQuery(MatchQuery((), terms=(term,)), APP)
        found = [candidate.message_id for candidate in recall.index.search(query)]
        if term == recall.index.analysis.term("databas"):  # stemmed: `databas` is one too
            assert len(found) == 2
        else:
            assert found == [database]

    def test_word_families_follow_the_install_language(self, harness: StorageHarness) -> None:
        """Under the language an install names, a word finds its inflections in that
        language (`Rechnung` finds `Rechnungen`, which English stems never join); a
        change of language re-indexes what is there; documents keep their text as
        written; back in English, English stems join again."""
        if harness.open_in is None:
            pytest.skip("the adapter under test lets a host choose no language")
        recall = harness.recall()
        invoice_text = "Die Rechnungen gehen am Monatsende raus."
        _, (invoices, towels) = seed_chat(
            recall.host, APP, "Berlin", [(ASSISTANT, invoice_text), (USER, "towels cost 2")]
        )
        families = {  # language: (the word asked, the message that writes it inflected)
            Language.FRENCH: ("animal", "Les animaux ne sont pas admis."),
            Language.SPANISH: ("excursión", "Las excursiones salen los martes."),
            Language.ITALIAN: ("colazione", "Le colazioni sono servite alle 7:30."),
            Language.DUTCH: ("boeking", "Boekingen via een platform kosten commissie."),
        }
        written = {Language.GERMAN: (invoices, invoice_text)}
        for language, (_, text) in families.items():
            (message,) = seed_chat(recall.host, APP, "house", [(ASSISTANT, text)])[1]
            written[language] = (message, text)
        families[Language.GERMAN] = ("Rechnung", invoice_text)
        recall.indexer.run_until_idle()
        harness.publish_writes(recall)

        def found(current: ChatRecall, *words: str) -> list[MessageId]:
            query = ScopedQuery(MatchQuery.of_words(*words), APP)
            return [candidate.message_id for candidate in current.index.search(query)]

        assert found(recall, "rechnung") == []
        assert found(recall, "towel") == [towels]
        for language, (word, _) in families.items():
            current = harness.restart_in(language)
            current.indexer.run_until_idle()
            harness.publish_writes(current)
            assert current.index.analysis.language is language
            message, text = written[language]
            assert found(current, word.lower()) == [message], language
            (document,) = current.index.documents(APP, [message])
            assert document.body == text  # as written, not as stems
        german = harness.restart_in(Language.GERMAN)
        german.indexer.run_until_idle()
        harness.publish_writes(german)
        assert found(german, "rechnung", "monatsende") == [invoices]
        query = ScopedQuery(MatchQuery((("rechnung", "gehen"),)), APP)  # a phrase
        assert [c.message_id for c in german.index.search(query)] == [invoices]
        english = harness.restart_in(Language.ENGLISH)
        english.indexer.run_until_idle()
        harness.publish_writes(english)
        assert found(english, "rechnung") == []
        assert found(english, "towel") == [towels]

    def test_a_language_without_its_stemmer_is_refused_and_the_index_kept(
        self, harness: StorageHarness, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A start under a Snowball language this install cannot stem (PyStemmer
        missing, or without that language's algorithm) raises `MissingExtra` naming
        the extra, on every engine alike, before anything is written: the index keeps
        the language it records and answers as before. So does an index that records
        such a language, opened where the extra is missing: it is refused, never
        re-indexed in English behind the host's back."""
        if harness.open_in is None:
            pytest.skip("the adapter under test lets a host choose no language")
        recall = harness.recall()
        _, (invoices,) = seed_chat(
            recall.host, APP, "Berlin", [(ASSISTANT, "Die Rechnungen gehen am Montag raus.")]
        )
        recall.indexer.run_until_idle()
        harness.publish_writes(recall)

        def found(current: ChatRecall, word: str) -> list[MessageId]:
            query = ScopedQuery(MatchQuery.of_words(word), APP)
            return [candidate.message_id for candidate in current.index.search(query)]

        def refused(language: Language | None, reason: str) -> None:
            before = harness.storage_state() if harness.storage_state else None
            start = harness.reopen if language is None else partial(harness.reopen_in, language)
            with pytest.raises(MissingExtra, match=reason) as raised:
                start()
            assert raised.value.extra == "snowball"
            if harness.storage_state is not None:
                assert harness.storage_state() == before

        import Stemmer  # PyStemmer: this suite runs with the snowball extra

        algorithms = [name for name in Stemmer.algorithms() if name != "german"]
        with monkeypatch.context() as patched:
            patched.setattr(Stemmer, "algorithms", lambda: algorithms)
            refused(Language.GERMAN, "no german stemmer")
        with monkeypatch.context() as patched:
            patched.setitem(sys.modules, "Stemmer", None)  # the import fails
            refused(Language.GERMAN, r"chat-recall\[snowball\]")
        english = harness.reopen()
        assert english.index.analysis.language is Language.ENGLISH
        assert found(english, "rechnungen") == [invoices]

        german = harness.restart_in(Language.GERMAN)
        german.indexer.run_until_idle()
        harness.publish_writes(german)
        assert found(german, "rechnung") == [invoices]
        with monkeypatch.context() as patched:
            patched.setitem(sys.modules, "Stemmer", None)
            refused(None, r"chat-recall\[snowball\]")  # it records german
        again = harness.reopen()
        assert again.index.analysis.language is Language.GERMAN
        assert found(again, "rechnung") == [invoices]

    def test_vocabulary_holds_the_apps_own_terms_and_their_documents(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        seed_chat(recall.host, APP, "a", [(USER, "session storage"), (USER, "sessions expire")])
        seed_chat(recall.host, APP, "b", [(USER, "a zebra crossing")])
        seed_chat(recall.host, OTHER_APP, "c", [(USER, "sessionless zebra quagga")])
        recall.indexer.run_until_idle()
        term = recall.index.analysis.term

        def vocabulary(app_id: AppId, *terms: str, prefix: str = "", limit: int = 10) -> dict:  # type: ignore[type-arg]
            probe = VocabularyProbe(app_id, tuple(terms), prefix, limit)
            found = recall.index.vocabulary(probe)
            assert [t.term for t in found] == sorted(t.term for t in found)
            return {t.term: t.documents for t in found}

        exact = vocabulary(APP, term("session"), term("zebra"), term("quagga"), "nothere")
        assert exact == {term("session"): 2, term("zebra"): 1}
        assert term("sessionless") not in vocabulary(APP, prefix="sess")  # another app's
        assert vocabulary(APP, prefix="sess") == {term("session"): 2}
        assert vocabulary(OTHER_APP, prefix="sess") == {term("sessionless"): 1}
        assert len(vocabulary(APP, prefix="s", limit=1)) == 1
        assert vocabulary(EMPTY_APP, term("zebra"), prefix="ze") == {}
