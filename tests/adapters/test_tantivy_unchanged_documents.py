"""Attacks on the tantivy engine leaving a document that comes out the same as the
published one as it is (`TantivyIndexStore._without_unchanged`): edits back and forth,
deletes, moves between chats and apps, language changes, crashes and random sequences
of them. Every test asserts the correct answer, so a failure is a wrong answer the skip
caused. `REDTEAM_ENGINE=sqlite` runs them on FTS5; `REDTEAM_SEEDS=N` runs more random
sequences."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.adapters.tantivy.engine import TantivyIndexes
from chat_recall.adapters.tantivy.index_store import TantivyIndexStore
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.fixtures import APP, USER, seed_chat
from chat_recall.domain.model import AppId, ChatId, MessageId
from chat_recall.domain.query import MatchQuery, ScopedQuery
from chat_recall.domain.text.language import Language
from tests.adapters.test_tantivy_engine import stage_one_batch

OTHER_APP = AppId(2)
ENGINE = Engine(os.environ.get("REDTEAM_ENGINE", Engine.TANTIVY.value))
# Each text one distinct word (stems to itself), so a search for it finds exactly the
# messages whose current text is it.
WORDS = ("quince", "medlar", "loquat", "sorrel")


def open_tantivy(path: Path, language: Language | None = None) -> ChatRecall:
    return bootstrap.sqlite(path, create_host_schema=True, engine=ENGINE, language=language)


def store(recall: ChatRecall) -> TantivyIndexStore:
    assert isinstance(recall.index, TantivyIndexStore)
    return recall.index


def set_publish_seconds(recall: ChatRecall, seconds: float) -> None:
    if isinstance(recall.index, TantivyIndexStore):
        recall.index.publish_seconds = seconds


def found(recall: ChatRecall, word: str, app_id: AppId = APP) -> list[MessageId]:
    query = ScopedQuery(MatchQuery.of_words(word), app_id)
    return [candidate.message_id for candidate in recall.index.search(query)]


def found_in(recall: ChatRecall, word: str, app_id: AppId) -> dict[MessageId, ChatId]:
    query = ScopedQuery(MatchQuery.of_words(word), app_id)
    return {c.message_id: c.chat_id for c in recall.index.search(query)}


def publish(recall: ChatRecall) -> None:
    if isinstance(recall.index, TantivyIndexStore):
        recall.index.publish()


def drain(recall: ChatRecall) -> None:
    recall.indexer.run_until_idle()
    publish(recall)
    recall.index.maintain()


def crash(recall: ChatRecall) -> None:
    """The process ends (SIGKILL): a background commit that returned is durable, but
    nothing after it ran; uncommitted changes and writers are gone."""
    if not isinstance(recall.index, TantivyIndexStore):
        recall.indexer.stop()
        recall.index.database.close()  # type: ignore[attr-defined]
        return
    indexes = store(recall).indexes
    commit = indexes.committing
    if commit is not None:
        commit._thread.join()  # the commit is on disk; its staged rows not forgotten
    with TantivyIndexes._registry_lock:
        TantivyIndexes._open.pop(indexes.root, None)
    indexes._writers.clear()
    indexes._indexes.clear()
    indexes.committing = None
    recall.indexer.stop()
    store(recall).database.close()
    import gc

    gc.collect()


def sql(path: Path, statement: str, *parameters: object) -> None:
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(statement, parameters)
    connection.close()


# -- targeted sequences -------------------------------------------------------------------


def test_edit_a_b_a_across_publishes_finds_the_latest_text(tmp_path: Path) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    _, (message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    for text in ("medlar", "quince", "medlar", "quince"):
        recall.host.update_message(message, text)
        drain(recall)
        other = "medlar" if text == "quince" else "quince"
        assert found(recall, text) == [message]
        assert found(recall, other) == []
    recall.close()


def test_edit_back_while_the_edit_is_staged_finds_the_latest_text(tmp_path: Path) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    _, (message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    recall.host.update_message(message, "medlar")
    stage_one_batch(recall)  # medlar staged, not published
    recall.host.update_message(message, "quince")
    stage_one_batch(recall)
    recall.index.maintain()
    assert found(recall, "quince") == [message]
    assert found(recall, "medlar") == []
    recall.close()


def test_edit_back_while_a_background_publish_is_in_flight(tmp_path: Path) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    store(recall).publish_seconds = 0.0
    _, (message, keep) = seed_chat(recall.host, APP, "c", [(USER, "quince"), (USER, "sorrel")])
    drain(recall)
    recall.host.update_message(message, "medlar")
    stage_one_batch(recall)
    recall.host.update_message(keep, "sorrel loquat")
    recall.index.maintain()  # a marker is left: the publish of medlar runs in the background
    assert store(recall).indexes.committing is not None
    recall.host.update_message(message, "quince")
    stage_one_batch(recall)
    drain(recall)
    assert found(recall, "quince") == [message]
    assert found(recall, "medlar") == []
    recall.close()


def test_a_deleted_id_used_again_with_the_same_text_and_description(tmp_path: Path) -> None:
    """The host deletes the last message and writes one with the same id, chat, role,
    time and text: the deleted one is invisible at once, the new one found after."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    chat, (message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    recall.host.delete_message(message)
    assert found(recall, "quince") == []
    sql(
        path,
        "INSERT INTO messages(id, chat_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
        message,
        chat,
        "user",
        "quince",
        1001,
    )
    drain(recall)
    assert found(recall, "quince") == [message]
    recall.host.delete_message(message)
    assert found(recall, "quince") == []
    drain(recall)
    assert found(recall, "quince") == []
    recall.close()


def test_a_deleted_chat_is_not_found_at_once_nor_after(tmp_path: Path) -> None:
    recall = open_tantivy(tmp_path / "h.db")
    chat, (_message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    recall.dirty.mark_all_messages()  # a rebuild in place, under way
    stage_one_batch(recall)  # the unchanged document is left as it is
    recall.host.delete_chat(chat)
    assert found(recall, "quince") == []
    drain(recall)
    assert found(recall, "quince") == []
    recall.close()


def test_a_chat_moved_to_another_app_is_found_only_there(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    chat, (message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    sql(path, "UPDATE chats SET app_id = ? WHERE id = ?", OTHER_APP, chat)
    drain(recall)
    assert found(recall, "quince") == []
    assert found(recall, "quince", OTHER_APP) == [message]
    sql(path, "UPDATE chats SET app_id = ? WHERE id = ?", APP, chat)  # and back
    drain(recall)
    assert found(recall, "quince") == [message]
    assert found(recall, "quince", OTHER_APP) == []
    recall.close()


def test_a_rebuild_in_place_after_a_crash_leaves_nothing_stale(tmp_path: Path) -> None:
    """SIGKILL after the commit of an edit, before its staged row went; then an edit
    back to the published text, indexed by the next process."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    _, (message,) = seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    recall.host.update_message(message, "medlar")
    stage_one_batch(recall)
    store(recall).indexes.commit()  # durable, staged row still there
    crash(recall)
    again = open_tantivy(path)
    again.host.update_message(message, "quince")
    drain(again)
    assert found(again, "quince") == [message]
    assert found(again, "medlar") == []
    again.close()


def test_a_language_change_writes_every_document_under_the_new_analysis(
    tmp_path: Path,
) -> None:
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    text = "Die Rechnungen gehen am Monatsende raus."
    _, (invoices,) = seed_chat(recall.host, APP, "Berlin", [(USER, text)])
    drain(recall)
    assert found(recall, "rechnung") == []
    recall.close()
    german = open_tantivy(path, Language.GERMAN)
    drain(german)
    assert found(german, "rechnung") == [invoices]
    german.dirty.mark_all_messages()  # a rebuild in place under German: unchanged
    drain(german)
    assert found(german, "rechnung") == [invoices]
    german.close()
    english = open_tantivy(path, Language.ENGLISH)
    drain(english)
    assert found(english, "rechnung") == []
    english.close()


def test_a_language_change_interrupted_then_reverted(tmp_path: Path) -> None:
    """English, German started and killed part way (some documents German), back to
    English: every document must hold English terms again."""
    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    texts = [(USER, f"Die Rechnungen {n} gehen am Monatsende raus.") for n in range(6)]
    _, ids = seed_chat(recall.host, APP, "Berlin", texts)
    drain(recall)
    recall.close()
    german = open_tantivy(path, Language.GERMAN)
    german.indexer.run_until_idle(max_batches=1)
    publish(german)
    crash(german)
    english = open_tantivy(path, Language.ENGLISH)
    drain(english)
    assert found(english, "rechnung") == []
    assert sorted(found(english, "rechnungen")) == sorted(ids)
    english.close()
    german = open_tantivy(path, Language.GERMAN)
    drain(german)
    assert sorted(found(german, "rechnung")) == sorted(ids)
    german.close()


def test_the_meta_key_follows_the_drain(tmp_path: Path) -> None:
    from chat_recall.adapters.tantivy.index_store import WRITTEN_UNDER

    path = tmp_path / "h.db"
    recall = open_tantivy(path)
    seed_chat(recall.host, APP, "c", [(USER, "quince")])
    drain(recall)
    connection = sqlite3.connect(path)
    (value,) = connection.execute(
        "SELECT value FROM chat_recall_meta WHERE key = ?", (WRITTEN_UNDER,)
    ).fetchone()
    connection.close()
    assert value == store(recall).analysis.name
    recall.close()


# -- the semantic layer -------------------------------------------------------------------


def test_vectors_follow_an_edit_and_an_edit_back(tmp_path: Path) -> None:
    from chat_recall.contracts.vector_store import WordHashEmbedder, embed_all, near

    recall = open_tantivy(tmp_path / "h.db")
    _, (message, _other) = seed_chat(
        recall.host, APP, "c", [(USER, "quince quince quince"), (USER, "sorrel sorrel")]
    )
    embedder = WordHashEmbedder()
    embed_all(recall, embedder)
    assert near(recall, "quince quince quince")[0] == message
    for text in ("medlar medlar medlar", "quince quince quince", "medlar medlar medlar"):
        recall.host.update_message(message, text)
        recall.dirty.mark_all_messages()
        embed_all(recall, embedder)
        assert near(recall, text)[0] == message
        (document,) = recall.index.documents(APP, [message])
        assert document.body == text
    recall.close()


# -- random sequences ---------------------------------------------------------------------


@attrs.define
class Model:
    """What the host holds now: message -> (chat, text), chat -> app; deleted ids."""

    messages: dict[MessageId, tuple[ChatId, str]] = attrs.field(factory=dict)
    chats: dict[ChatId, AppId] = attrs.field(factory=dict)
    deleted: set[MessageId] = attrs.field(factory=set)

    def expected(self, word: str, app_id: AppId) -> dict[MessageId, ChatId]:
        return {
            m: chat
            for m, (chat, text) in self.messages.items()
            if word in text.split() and self.chats[chat] == app_id
        }


def check_deleted_at_once(recall: ChatRecall, model: Model, note: str) -> None:
    for word in WORDS:
        for app_id in (APP, OTHER_APP):
            hits = set(found(recall, word, app_id))
            assert not hits & model.deleted, (note, word, app_id)
            # never a deleted chat's or moved-away message's words beyond what it holds
            assert hits <= set(model.messages), (note, word)


def check_exact(recall: ChatRecall, model: Model, note: str) -> None:
    for word in WORDS:
        for app_id in (APP, OTHER_APP):
            assert found_in(recall, word, app_id) == model.expected(word, app_id), (
                note,
                word,
                app_id,
            )


def run_sequence(path: Path, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    recall = open_tantivy(path)
    set_publish_seconds(recall, rng.choice([0.0, 1000.0]))
    model = Model()
    log: list[str] = []
    chat_ids = []
    for n in range(3):
        app_id = APP if n < 2 else OTHER_APP
        chat = recall.host.create_chat(app_id, f"chat {n}", 1000)
        model.chats[chat] = app_id
        chat_ids.append(chat)
    for n in range(6):
        chat = chat_ids[n % 3]
        text = rng.choice(WORDS)
        m = recall.host.add_message(chat, USER, text, 1001 + n)
        model.messages[m] = (chat, text)
    drain(recall)
    check_exact(recall, model, "start")
    for step in range(steps):
        op = rng.choice(
            [
                "edit",
                "edit",
                "edit",
                "edit_back",
                "delete",
                "add",
                "move",
                "move_chat",
                "stage",
                "stage",
                "maintain",
                "maintain",
                "publish",
                "rebuild",
                "crash",
                "drain",
                "rename",
            ]
        )
        live = sorted(model.messages)
        entry = f"{step}:{op}"
        if op in ("edit", "edit_back") and live:
            m = rng.choice(live)
            chat, old = model.messages[m]
            text = rng.choice([w for w in WORDS if w != old])
            recall.host.update_message(m, text)
            model.messages[m] = (chat, text)
            entry += f" {m} {old}->{text}"
            if op == "edit_back":
                stage_one_batch(recall)
                recall.host.update_message(m, old)
                model.messages[m] = (chat, old)
                entry += f"->{old}"
        elif op == "delete" and live:
            m = rng.choice(live)
            recall.host.delete_message(m)
            del model.messages[m]
            model.deleted.add(m)
            entry += f" {m}"
        elif op == "add":
            chat = rng.choice(chat_ids)
            text = rng.choice(WORDS)
            m = recall.host.add_message(chat, USER, text, 1001)
            model.messages[m] = (chat, text)
            model.deleted.discard(m)
            entry += f" {m} in {chat} {text}"
        elif op == "move" and live:
            m = rng.choice(live)
            chat = rng.choice(chat_ids)
            sql(path, "UPDATE messages SET chat_id = ? WHERE id = ?", chat, m)
            model.messages[m] = (chat, model.messages[m][1])
            entry += f" {m} to {chat}"
        elif op == "move_chat":
            chat = rng.choice(chat_ids)
            app_id = rng.choice([APP, OTHER_APP])
            sql(path, "UPDATE chats SET app_id = ? WHERE id = ?", app_id, chat)
            model.chats[chat] = app_id
            entry += f" {chat} to {app_id}"
        elif op == "rename":
            chat = rng.choice(chat_ids)
            recall.host.rename_chat(chat, f"renamed {step}")
        elif op == "stage":
            stage_one_batch(recall)
        elif op == "maintain":
            recall.index.maintain()
        elif op == "publish":
            publish(recall)
        elif op == "rebuild":
            recall.dirty.mark_all_messages()
        elif op == "crash":
            crash(recall)
            recall = open_tantivy(path)
            set_publish_seconds(recall, rng.choice([0.0, 1000.0]))
            recall.index.remove_orphans()  # what the next process's indexer does first
        elif op == "drain":
            drain(recall)
        log.append(entry)
        note = f"seed {seed}: " + "; ".join(log)
        check_deleted_at_once(recall, model, note)
        if op == "drain":
            check_exact(recall, model, note)
    drain(recall)
    check_exact(recall, model, f"seed {seed} end: " + "; ".join(log))
    recall.close()


@pytest.mark.parametrize("seed", range(int(os.environ.get("REDTEAM_SEEDS", "60"))))
def test_random_edit_delete_move_sequences(tmp_path: Path, seed: int) -> None:
    run_sequence(tmp_path / "h.db", seed, 40)


# -- another process indexes meanwhile ----------------------------------------------------


def other_process_indexes(path: Path, root: Path) -> None:
    """Another process (its own tantivy handles, so its own readers) indexes and
    publishes what is pending, and ends."""
    with TantivyIndexes._registry_lock:
        ours = TantivyIndexes._open.pop(root)
    try:
        other = open_tantivy(path)
        drain(other)
        other.close()
    finally:
        with TantivyIndexes._registry_lock:
            TantivyIndexes._open[root] = ours


def on_disk(root: Path, app_id: AppId, ids: list[MessageId]) -> dict[MessageId, str]:
    """The body tantivy holds on disk for each message (what a new process reads)."""
    import tantivy

    from chat_recall.adapters.tantivy.engine import SCHEMA, app_directory
    from chat_recall.adapters.tantivy.index_store import ids_of

    searcher = tantivy.Index(SCHEMA, path=str(app_directory(root, app_id)), reuse=True).searcher()
    query = tantivy.Query.term_set_query(SCHEMA, "message_id", ids)
    addresses = [address for _, address in searcher.search(query, len(ids) + 10).hits]
    held = ids_of(searcher, addresses)
    assert len(set(held)) == len(held), "a message held twice"
    return {
        m: bytes(searcher.doc(a).get_first("body_text")).decode()  # type: ignore[arg-type]
        for m, a in zip(held, addresses, strict=True)
    }


# -- a host writing during `rebuild`, and SIGKILL -------------------------------------------


def host_texts(path: Path) -> dict[MessageId, tuple[AppId, str]]:
    connection = sqlite3.connect(path)
    try:
        return {
            MessageId(m): (AppId(app), text)
            for m, app, text in connection.execute(
                "SELECT m.id, c.app_id, m.content FROM messages AS m JOIN chats AS c "
                "ON c.id = m.chat_id"
            )
        }
    finally:
        connection.close()


def assert_index_matches_host(path: Path) -> None:
    """Every message's document on disk holds its current text, in its app only."""
    texts = host_texts(path)
    root = path.parent / (path.name + ".chat-recall-tantivy")
    for app_id in (APP, OTHER_APP):
        ids = sorted(m for m, (app, _) in texts.items() if app == app_id)
        held = on_disk(root, app_id, sorted(texts)) if (root / f"app-{app_id}").exists() else {}
        wrong = {m: (held.get(m), texts[m][1]) for m in ids if held.get(m) != texts[m][1]}
        assert wrong == {}, app_id
        strays = set(held) - set(ids)
        assert strays == set(), app_id


def seed_many(path: Path, count: int) -> list[MessageId]:
    recall = open_tantivy(path)
    chat = recall.host.create_chat(APP, "plans", 1)
    other = recall.host.create_chat(OTHER_APP, "plans", 1)
    ids = [
        recall.host.add_message(chat if n % 3 else other, USER, f"plan {n} {WORDS[n % 4]}", n + 2)
        for n in range(count)
    ]
    drain(recall)
    recall.close()
    return ids


def test_edits_back_and_forth_while_rebuild_runs(tmp_path: Path) -> None:
    import threading

    from chat_recall.adapters.cli.main import main

    path = tmp_path / "h.db"
    ids = seed_many(path, 1500)
    stop = threading.Event()
    edits = []

    def host() -> None:
        rng = random.Random(7)
        connection = sqlite3.connect(path, isolation_level=None, timeout=10)
        while not stop.is_set():
            m = rng.choice(ids[:200])  # few messages, so A->B->A happens often
            text = f"edited {rng.choice(WORDS)}"
            connection.execute("UPDATE messages SET content = ? WHERE id = ?", (text, m))
            edits.append(m)
            stop.wait(0.001)
        connection.close()

    thread = threading.Thread(target=host)
    thread.start()
    try:
        assert main(["rebuild", "--db", str(path), "--quiet"]) == 0
    finally:
        stop.set()
        thread.join()
    assert main(["index", "--db", str(path), "--quiet"]) == 0
    assert len(edits) > 50
    assert_index_matches_host(path)


@pytest.mark.parametrize("command", ["index", "rebuild"])
def test_sigkill_of_a_command_then_edits_back_then_index(tmp_path: Path, command: str) -> None:
    import signal
    import subprocess
    import sys

    path = tmp_path / "h.db"
    ids = seed_many(path, 6000)
    rng = random.Random(3)
    before = host_texts(path)
    for m in ids[::7]:
        sql(path, "UPDATE messages SET content = ? WHERE id = ?", f"edited {rng.choice(WORDS)}", m)
    process = subprocess.Popen(
        [sys.executable, "-m", "chat_recall", command, "--db", str(path), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    connection = sqlite3.connect(path, timeout=10)
    try:
        while process.poll() is None:  # until it has published something and staged more
            published = connection.execute(
                "SELECT count(*) FROM chat_recall_docs AS d WHERE NOT EXISTS (SELECT 1 FROM "
                "chat_recall_tantivy_staged AS z WHERE z.message_id = d.message_id)"
            ).fetchone()[0]
            staged = connection.execute(
                "SELECT count(*) FROM chat_recall_tantivy_staged"
            ).fetchone()[0]
            if staged and published:
                break
    finally:
        connection.close()
    process.send_signal(signal.SIGKILL)
    process.wait()
    for m in ids[::7]:  # back to what was published before, for half of them
        if m % 2:
            sql(path, "UPDATE messages SET content = ? WHERE id = ?", before[m][1], m)
    subprocess.run(
        [sys.executable, "-m", "chat_recall", "index", "--db", str(path), "--quiet"],
        check=True,
        capture_output=True,
    )
    assert_index_matches_host(path)
