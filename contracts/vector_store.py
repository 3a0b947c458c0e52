"""`VectorStoreContract`: the vectors beside the index (`domain.ports.VectorStore`):
off until a model is recorded, app scope, deletes hidden at once, a vector only for
the text it was made from, a model change, turning off, bounded writes, work that
survives a restart half way (crash safety: every step is its own transaction), and
warming (loading an app's vectors ahead of its first search) that never changes what
a search finds, whatever is written or deleted meanwhile.

The suite embeds with `WordHashEmbedder`: deterministic, no model files, near for
texts that share words, so "nearest" has one right answer."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import attrs

from chat_recall.application.embedding import Embedding, EmbeddingSettings
from chat_recall.application.service import ChatRecall
from chat_recall.contracts.fixtures import (
    APP,
    EMPTY_APP,
    OTHER_APP,
    USER,
    HarnessLifecycle,
    seed_chat,
)
from chat_recall.contracts.harness import StorageHarness
from chat_recall.domain.model import MessageId
from chat_recall.domain.semantic import (
    EmbeddingModel,
    MeaningQuery,
    Purpose,
    away_from,
    centering_share,
    chat_similarity,
    cosine,
    pack_vector,
    unpack_vector,
)

DIMENSION = 32
DOC = Purpose.DOCUMENT


@attrs.define
class WordHashEmbedder:
    """Each word adds one to a hashed coordinate: texts sharing words are near."""

    identity: str = "word-hash-32"
    calls: list[list[str]] = attrs.field(factory=list)

    @property
    def model(self) -> EmbeddingModel:
        return EmbeddingModel(self.identity, DIMENSION)

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[bytes]:
        self.calls.append(list(texts))
        return [_hashed([(word, 1.0) for word in re.findall(r"\w+", t.lower())]) for t in texts]

    def embed_query(self, query: MeaningQuery) -> bytes:
        """Each word weighs its weight (the text's words, one each, without words)."""
        if not query.words:
            return self.embed([query.text], Purpose.QUERY)[0]
        return _hashed([(w.word.lower(), w.weight) for w in query.words])

    def close(self) -> None:
        """Nothing held."""


def _hashed(words: Sequence[tuple[str, float]]) -> bytes:
    values = [0.0] * DIMENSION
    for word, weight in words:
        digest = hashlib.blake2b(word.encode(), digest_size=2).digest()
        values[int.from_bytes(digest, "little") % DIMENSION] += weight
    return pack_vector(values)


def embed_all(recall: ChatRecall, embedder: WordHashEmbedder, batch: int = 128) -> Embedding:
    recall.indexer.run_until_idle()
    harness_publish(recall)
    embedding = Embedding(embedder, recall.vectors, recall.index, EmbeddingSettings(batch=batch))
    embedding.run_until_done()
    return embedding


def harness_publish(recall: ChatRecall) -> None:
    """Engines that publish in their maintenance step: run it once more."""
    recall.index.maintain()


def near(recall: ChatRecall, text: str, app_id: object = APP, **kwargs: object) -> list[MessageId]:
    (vector,) = WordHashEmbedder().embed([text], Purpose.QUERY)
    found = recall.vectors.nearest(app_id, vector, 10, **kwargs)  # type: ignore[arg-type]
    return [s.message_id for s in found]


class VectorStoreContract(HarnessLifecycle):
    def test_vectors_are_off_until_a_model_is_recorded(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        seed_chat(recall.host, APP, "Auth", [(USER, "passkeys for sign in")])
        recall.indexer.run_until_idle()
        vectors = recall.vectors
        assert vectors.vector_model() is None
        assert vectors.queue_step(100) == 0
        assert vectors.pending_vectors(10) == []
        coverage = vectors.vector_coverage(APP)
        assert (coverage.model, coverage.embedded, coverage.pending) == (None, 0, 0)
        assert near(recall, "passkeys sign in") == []

    def test_nearest_finds_the_document_sharing_the_words(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (auth,) = seed_chat(recall.host, APP, "Auth", [(USER, "passkeys replace passwords")])
        _, (food,) = seed_chat(recall.host, APP, "Food", [(USER, "flour sugar eggs butter")])
        embed_all(recall, WordHashEmbedder())
        assert near(recall, "passkeys passwords")[0] == auth
        assert near(recall, "sugar butter flour")[0] == food
        similar = recall.vectors.nearest(APP, WordHashEmbedder().embed(["x"], Purpose.QUERY)[0], 1)
        assert len(similar) == 1
        coverage = recall.vectors.vector_coverage(APP)
        assert (coverage.embedded, coverage.pending, coverage.complete) == (2, 0, True)

    def test_nearest_is_scoped_to_one_app(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (mine,) = seed_chat(recall.host, APP, "Auth", [(USER, "argon2 hashing chosen")])
        _, (theirs,) = seed_chat(recall.host, OTHER_APP, "Auth", [(USER, "argon2 hashing chosen")])
        embed_all(recall, WordHashEmbedder())
        assert near(recall, "argon2 hashing") == [mine]
        assert near(recall, "argon2 hashing", OTHER_APP) == [theirs]
        assert near(recall, "argon2 hashing", EMPTY_APP) == []
        assert recall.vectors.vector_coverage(OTHER_APP).embedded == 1

    def test_the_excluded_chat_and_the_floor_are_applied(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        current, _ = seed_chat(recall.host, APP, "now", [(USER, "deploy with fly")] * 3)
        _, (other,) = seed_chat(recall.host, APP, "old", [(USER, "we deploy with fly")])
        _, (far,) = seed_chat(recall.host, APP, "far", [(USER, "soup recipe tonight")])
        embed_all(recall, WordHashEmbedder())
        assert near(recall, "deploy with fly", exclude_chat_id=current)[0] == other
        kept = near(recall, "deploy with fly", exclude_chat_id=current, floor=0.5)
        assert kept == [other]
        assert far not in kept

    def test_a_centered_search_compares_what_sets_documents_apart(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        texts = ["shop shop shop checkout", "shop shop shop invoices", "shop refunds"]
        _, ids = seed_chat(recall.host, APP, "Shop", [(USER, t) for t in texts])
        seed_chat(recall.host, OTHER_APP, "Else", [(USER, "garden roses tulips")])
        embed_all(recall, WordHashEmbedder())
        # As the embedding job reads a document: its chat's title, then its body.
        stored = WordHashEmbedder().embed([f"Shop\n{t}" for t in texts], Purpose.DOCUMENT)
        columns = zip(*(unpack_vector(v, DIMENSION) for v in stored), strict=True)
        mean = [sum(column) / len(stored) for column in columns]  # this app's alone
        (query,) = WordHashEmbedder().embed(["shop checkout"], Purpose.QUERY)
        expected = sorted(
            (
                (cosine(v, away_from(query, mean, centering_share(len(stored)))), i)
                for v, i in zip(stored, ids, strict=True)
            ),
            key=lambda pair: (-pair[0], pair[1]),
        )
        found = recall.vectors.nearest(APP, query, 10, centered=True)
        assert [s.message_id for s in found] == [i for _, i in expected]
        for similar, (similarity, _) in zip(found, expected, strict=True):
            assert abs(similar.similarity - similarity) < 1e-4
        # Uncentered, the shared word ranks the documents it fills first.
        assert near(recall, "shop checkout")[0] == ids[0]

    def test_nearest_chats_weigh_a_chats_mean_and_its_best_document(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        topic = ["invoices overdue reminders", "invoices paid late fees", "overdue invoices"]
        mixed = ["invoices overdue reminders", "garden roses", "tulips soil"]
        chats = {}
        for title, texts in (("A", topic), ("B", mixed), ("C", ["roses tulips garden"])):
            chat, _ = seed_chat(recall.host, APP, title, [(USER, t) for t in texts])
            chats[title] = (chat, WordHashEmbedder().embed([f"{title}\n{t}" for t in texts], DOC))
        current, _ = seed_chat(recall.host, APP, "now", [(USER, "invoices overdue")])
        embed_all(recall, WordHashEmbedder())
        (query,) = WordHashEmbedder().embed(["invoices overdue reminders"], Purpose.QUERY)
        found = recall.vectors.nearest_chats(
            APP, query, 10, per_chat=2, mean_weight=0.5, exclude_chat_id=current
        )
        expected = []
        for chat, vectors in chats.values():
            columns = zip(*(unpack_vector(v, DIMENSION) for v in vectors), strict=True)
            mean = cosine(pack_vector([sum(c) for c in columns]), query)
            best = max(cosine(v, query) for v in vectors)
            expected.append((chat_similarity(mean, best, 0.5), chat, mean))
        expected.sort(key=lambda e: (-e[0], e[1]))
        assert [c.chat_id for c in found] == [chat for _, chat, _ in expected]
        for got, (similarity, _, mean) in zip(found, expected, strict=True):
            assert abs(got.similarity - similarity) < 1e-4
            assert abs(got.mean - mean) < 1e-4
            assert len(got.best) <= 2
            assert [m.similarity for m in got.best] == sorted(
                (m.similarity for m in got.best), reverse=True
            )
        # A (every document on the topic) above B (one document as near, the rest not)
        assert found[0].chat_id == chats["A"][0]
        assert found[0].best[0].similarity == found[1].best[0].similarity
        assert recall.vectors.nearest_chats(APP, query, 1, per_chat=1, mean_weight=0.5)
        assert recall.vectors.nearest_chats(EMPTY_APP, query, 5, per_chat=1, mean_weight=0.5) == []

    def test_nearest_chats_never_count_a_deleted_document(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat, (near_one, other) = seed_chat(
            recall.host, APP, "A", [(USER, "invoices overdue"), (USER, "roses")]
        )
        gone_chat, _ = seed_chat(recall.host, APP, "B", [(USER, "invoices overdue reminders")])
        embed_all(recall, WordHashEmbedder())
        (query,) = WordHashEmbedder().embed(["invoices overdue"], Purpose.QUERY)
        before = recall.vectors.nearest_chats(APP, query, 5, per_chat=2, mean_weight=0.5)
        assert {c.chat_id for c in before} == {chat, gone_chat}
        recall.host.delete_chat(gone_chat)  # no indexer run: at once
        recall.host.delete_message(near_one)
        after = recall.vectors.nearest_chats(APP, query, 5, per_chat=2, mean_weight=0.5)
        assert [c.chat_id for c in after] == [chat]
        assert [m.message_id for m in after[0].best] == [other]
        (alone,) = WordHashEmbedder().embed(["A\nroses"], DOC)
        assert abs(after[0].mean - cosine(alone, query)) < 1e-4  # the deleted one is out

    def test_deleted_messages_and_chats_are_never_returned(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        chat, (first, second) = seed_chat(
            recall.host, APP, "Auth", [(USER, "passkeys chosen"), (USER, "passkeys rollout")]
        )
        other_chat, (third,) = seed_chat(recall.host, APP, "More", [(USER, "passkeys later")])
        embed_all(recall, WordHashEmbedder())
        assert set(near(recall, "passkeys")) == {first, second, third}
        recall.host.delete_message(first)  # no indexer run, no maintenance: at once
        assert set(near(recall, "passkeys")) == {second, third}
        recall.host.delete_chat(other_chat)
        assert near(recall, "passkeys") == [second]
        recall.indexer.run_until_idle()
        for _ in range(5):
            recall.index.maintain()
        assert near(recall, "passkeys") == [second]
        assert recall.vectors.vector_coverage(APP).embedded == 1
        assert chat

    def test_an_edited_message_loses_its_old_vector_at_once(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (message,) = seed_chat(recall.host, APP, "Notes", [(USER, "passkeys everywhere")])
        embedder = WordHashEmbedder()
        embed_all(recall, embedder)
        assert near(recall, "passkeys everywhere") == [message]
        recall.host.update_message(message, "soup recipe tonight")
        recall.indexer.run_until_idle()
        harness_publish(recall)
        assert near(recall, "passkeys everywhere") == []  # the old text's vector is gone
        assert recall.vectors.vector_coverage(APP).pending == 1
        Embedding(embedder, recall.vectors, recall.index).run_until_done()
        assert near(recall, "soup recipe tonight") == [message]

    def test_a_vector_of_an_older_text_is_not_written(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        _, (message,) = seed_chat(recall.host, APP, "Notes", [(USER, "passkeys everywhere")])
        recall.indexer.run_until_idle()
        harness_publish(recall)
        embedder = WordHashEmbedder()
        vectors = recall.vectors
        vectors.use_vector_model(embedder.identity)
        while vectors.queue_step(100):
            pass
        (task,) = vectors.pending_vectors(10)
        (old,) = embedder.embed(["passkeys everywhere"], Purpose.DOCUMENT)
        recall.host.update_message(message, "soup recipe tonight")  # put again meanwhile
        recall.indexer.run_until_idle()
        harness_publish(recall)
        assert vectors.write_vectors(embedder.identity, [task], [old]) == 0
        assert near(recall, "passkeys everywhere") == []
        (newer,) = vectors.pending_vectors(10)
        assert newer.message_id == message
        assert newer.seq != task.seq

    def test_a_model_change_starts_the_vectors_over(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        seed_chat(recall.host, APP, "Auth", [(USER, "passkeys chosen"), (USER, "argon2 too")])
        embed_all(recall, WordHashEmbedder("first-model"))
        assert len(near(recall, "passkeys")) == 2
        second = WordHashEmbedder("second-model")
        embedding = Embedding(second, recall.vectors, recall.index)
        embedding.prepare()
        assert recall.vectors.vector_model() == "second-model"
        assert near(recall, "passkeys") == []  # never a vector of another model
        coverage = recall.vectors.vector_coverage(APP)
        assert (coverage.embedded, coverage.pending) == (0, 2)
        report = embedding.run_until_done()
        assert report.embedded == 2  # each replaces the first model's vector
        assert len(near(recall, "passkeys")) == 2
        assert recall.vectors.drop_step(100) == 0

    def test_a_vector_for_another_model_is_not_written(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        seed_chat(recall.host, APP, "Auth", [(USER, "passkeys chosen")])
        recall.indexer.run_until_idle()
        harness_publish(recall)
        vectors = recall.vectors
        vectors.use_vector_model("first-model")
        vectors.queue_step(100)
        tasks = vectors.pending_vectors(10)
        vectors.use_vector_model("second-model")
        made = WordHashEmbedder().embed(["passkeys chosen"], Purpose.DOCUMENT)
        assert vectors.write_vectors("first-model", tasks, made) == 0
        assert near(recall, "passkeys") == []

    def test_turning_off_hides_then_drops_every_vector(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        seed_chat(recall.host, APP, "Auth", [(USER, "passkeys chosen"), (USER, "argon2 too")])
        embed_all(recall, WordHashEmbedder())
        recall.vectors.use_vector_model(None)
        assert near(recall, "passkeys") == []
        assert recall.vectors.vector_model() is None
        dropped = 0
        while step := recall.vectors.drop_step(1):
            assert step == 1  # bounded: never more than asked
            dropped += 1
        assert dropped == 2
        assert recall.vectors.vector_coverage(None).embedded == 0

    def test_steps_are_bounded_and_survive_a_restart(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        texts = [(USER, f"note {n} about topic{n % 3}") for n in range(12)]
        _, ids = seed_chat(recall.host, APP, "Notes", texts)
        recall.indexer.run_until_idle()
        harness_publish(recall)
        embedder = WordHashEmbedder()
        recall.vectors.use_vector_model(embedder.identity)
        assert recall.vectors.queue_step(5) == 5
        embedding = Embedding(
            embedder, recall.vectors, recall.index, EmbeddingSettings(batch=4, queue_chunk=5)
        )
        report = embedding.step()
        assert report.embedded == 4
        assert max(len(call) for call in embedder.calls) <= 4
        if harness.capabilities.durable:
            recall = harness.reopen()  # as after a crash between two steps
        embedding = Embedding(
            embedder, recall.vectors, recall.index, EmbeddingSettings(batch=4, queue_chunk=5)
        )
        embedding.run_until_done()
        coverage = recall.vectors.vector_coverage(APP)
        assert (coverage.embedded, coverage.pending) == (12, 0)
        assert set(near(recall, "topic1")[:4]) == {ids[n] for n in (1, 4, 7, 10)}

    def test_a_secret_is_never_embedded(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
        seed_chat(recall.host, APP, "Keys", [(USER, f"my key is {secret} keep it")])
        embedder = WordHashEmbedder()
        embed_all(recall, embedder)
        seen = " ".join(text for call in embedder.calls for text in call)
        assert "keep it" in seen
        assert secret not in seen
        assert "A1b2C3d4E5f6G7h8" not in seen

    def test_warming_never_changes_what_a_search_finds(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        texts = [(USER, f"note {n} about topic{n % 4} and more{n % 3}") for n in range(30)]
        seed_chat(recall.host, APP, "Notes", texts[:15])
        seed_chat(recall.host, APP, "More", texts[15:])
        seed_chat(recall.host, OTHER_APP, "Theirs", [(USER, "topic1 elsewhere")])
        embed_all(recall, WordHashEmbedder())
        (query,) = WordHashEmbedder().embed(["topic1 more2"], Purpose.QUERY)

        def searched(facade: ChatRecall) -> tuple[object, object]:
            chats = facade.vectors.nearest_chats(
                APP, query, 5, per_chat=3, mean_weight=0.5, centered=True
            )
            found = facade.vectors.nearest(APP, query, 10, centered=True)
            return (
                [
                    (c.chat_id, [m.message_id for m in c.best], round(c.similarity, 5))
                    for c in chats
                ],
                [(m.message_id, round(m.similarity, 5)) for m in found],
            )

        cold = searched(recall)
        if harness.capabilities.durable:
            recall = harness.reopen()  # nothing loaded yet
        warmed = 0
        for _ in range(40):  # bounded: one row a step, and then nothing more
            step = recall.vectors.warm(APP, 1)
            assert step in (0, 1)
            if step == 0:
                break
            warmed += step
        assert recall.vectors.warm(APP, 1) == 0
        assert warmed in (0, 30)  # all of the app, or nothing (a store holding none apart)
        assert searched(recall) == cold

    def test_a_search_during_warming_sees_every_write_and_delete(
        self, harness: StorageHarness
    ) -> None:
        recall = harness.recall()
        chat, ids = seed_chat(
            recall.host, APP, "Auth", [(USER, f"passkeys note {n}") for n in range(6)]
        )
        embedder = WordHashEmbedder()
        embed_all(recall, embedder)
        if harness.capabilities.durable:
            recall = harness.reopen()
        recall.vectors.warm(APP, 2)  # part of the app
        recall.host.delete_message(ids[0])  # no indexer run: hidden at once
        assert ids[0] not in near(recall, "passkeys note")
        recall.vectors.warm(APP, 2)
        recall.host.add_message(chat, USER, "passkeys later", 99)
        recall.indexer.run_until_idle()
        harness_publish(recall)
        Embedding(embedder, recall.vectors, recall.index).run_until_done()
        while recall.vectors.warm(APP, 1):
            pass
        found = near(recall, "passkeys note")
        assert ids[0] not in found
        assert set(ids[1:]) <= set(found)
        assert len(found) == len(set(found)) == 6  # each once: no row held twice

    def test_vector_memory_lists_each_apps_vectors(self, harness: StorageHarness) -> None:
        recall = harness.recall()
        seed_chat(recall.host, APP, "Auth", [(USER, "passkeys"), (USER, "argon2")])
        seed_chat(recall.host, OTHER_APP, "Else", [(USER, "roses")])
        assert recall.vectors.vector_memory().apps == ()  # the layer is off
        embed_all(recall, WordHashEmbedder())
        if harness.capabilities.durable:
            recall = harness.reopen()
        memory = recall.vectors.vector_memory()
        listed = {app.app_id: app for app in memory.apps}
        assert set(listed) <= {APP, OTHER_APP}
        for app in listed.values():
            assert app.rows == recall.vectors.vector_coverage(app.app_id).embedded
            assert app.bytes > 0
            assert not app.held
        if listed:  # a store that holds vectors apart lists every app that has some
            assert set(listed) == {APP, OTHER_APP}
            while recall.vectors.warm(APP, 8):
                pass
            after = recall.vectors.vector_memory()
            assert {a.app_id for a in after.apps if a.held} == {APP}
            assert 0 < after.held_bytes <= after.budget_bytes
