"""Warming through the facade: `start()` (and `warm()`) load the app's vectors in a
short-lived thread that only reads, a search before it finishes answers the same, and
nothing of it is left after `close()` or the end of a `with` block; and `Warming`
itself over a store whose steps the test holds: the plan in paced steps, `stop`, and a
failing step that ends it quietly."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import attrs
import pytest

import chat_recall
from chat_recall.application.planning import Turns
from chat_recall.application.semantic import Warming
from chat_recall.domain.errors import StorageBusy
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId
from chat_recall.domain.warming import AppVectors, VectorMemory, WarmingSteps

WARMING = "chat-recall-warming"
TOPICS = ("carbonara pasta", "blue green deploys", "passkeys sign in", "invoice reminders")


def seeded(path: Path) -> None:
    with chat_recall.sqlite(
        path, create_host_schema=True, semantic=chat_recall.Semantic.local()
    ) as recall:
        for app in (1, 2):
            for n in range(12):
                chat = recall.host.create_chat(chat_recall.AppId(app), f"chat {n}", 10 * n + 1)
                for m in range(5):
                    text = f"{TOPICS[(n + m) % 4]} note {n}.{m}"
                    recall.host.add_message(chat, Role.USER, text, 10 * n + m + 2)
        assert recall.wait_until_indexed(120)


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "host.db"
    seeded(path)
    return path


def warming_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == WARMING]


def held_apps(recall: chat_recall.ChatRecall) -> set[int]:
    return {a.app_id for a in recall.vectors.vector_memory().apps if a.held}


def until(condition: Any, timeout: float = 30.0) -> bool:
    """A bounded wait on a condition (the warming thread runs on its own)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def search(recall: chat_recall.ChatRecall, query: str) -> str:
    return recall.search_chats(
        chat_recall.CallContext(app_id=chat_recall.AppId(1)), {"query": query}
    )


def test_start_warms_every_app_and_close_leaves_no_thread(database: Path) -> None:
    before = sorted(t.name for t in threading.enumerate())
    with chat_recall.sqlite(database) as recall:
        assert held_apps(recall) == set()
        recall.start()
        assert until(lambda: held_apps(recall) == {1, 2} and not warming_threads())
    assert sorted(t.name for t in threading.enumerate()) == before


def test_the_app_the_host_names_is_warmed_even_when_the_budget_holds_one(
    database: Path,
) -> None:
    with chat_recall.sqlite(database) as probe:
        memory = probe.vectors.vector_memory()
        one_app = max(a.bytes for a in memory.apps)
    with chat_recall.sqlite(database) as recall:
        recall.vectors.matrices.budget_bytes = one_app + one_app // 2  # type: ignore[attr-defined]
        recall.warm(chat_recall.AppId(1))  # app 2 was written last, but the host serves 1
        recall.start()  # warming runs already: unchanged
        assert until(lambda: not warming_threads())
        assert held_apps(recall) == {1}


@pytest.mark.parametrize("index", [True, False], ids=["indexing", "indexed-elsewhere"])
def test_the_mcp_server_warms_the_app_it_serves_first(database: Path, index: bool) -> None:
    from chat_recall.adapters.mcp_server import begin

    with chat_recall.sqlite(database) as probe:
        one_app = max(a.bytes for a in probe.vectors.vector_memory().apps)
    with chat_recall.sqlite(database) as recall:
        recall.vectors.matrices.budget_bytes = one_app + one_app // 2  # type: ignore[attr-defined]
        begin(recall, chat_recall.CallContext(app_id=chat_recall.AppId(1)), index=index)
        assert until(lambda: not warming_threads())
        assert held_apps(recall) == {1}  # app 2 was written last


def test_close_in_the_middle_of_warming_leaves_no_thread(database: Path) -> None:
    before = sorted(t.name for t in threading.enumerate())
    for _ in range(3):
        recall = chat_recall.sqlite(database)
        recall.warm()
        recall.close()  # at once: whatever step it was in
        assert warming_threads() == []
    assert sorted(t.name for t in threading.enumerate()) == before


def test_warming_only_reads(database: Path) -> None:
    statements: list[str] = []
    with chat_recall.sqlite(database) as recall:
        recall.vectors.database.trace = statements.append  # type: ignore[attr-defined]
        recall.warm()  # its thread opens its own connection, which is traced
        assert until(lambda: not warming_threads())
        assert held_apps(recall) == {1, 2}
    assert statements
    for statement in statements:
        assert statement.lstrip().upper().startswith(("SELECT", "PRAGMA")), statement


def test_a_search_before_warming_ends_answers_as_a_cold_one(database: Path) -> None:
    queries = ("pasta dinner", "how do users get in", "passkeys", "money owed")
    with chat_recall.sqlite(database) as cold:
        expected = [search(cold, q) for q in queries]
    with chat_recall.sqlite(database) as recall:
        recall.vectors.warm(chat_recall.AppId(1), 7)  # a step of the warming, then a search
        assert [search(recall, q) for q in queries] == expected
        recall.warm()
        assert [search(recall, q) for q in queries] == expected  # racing the thread
        assert until(lambda: not warming_threads())
        assert [search(recall, q) for q in queries] == expected
        assert any(json.loads(e)["results"] for e in expected)


def test_nothing_is_warmed_with_the_layer_off(tmp_path: Path) -> None:
    with chat_recall.sqlite(tmp_path / "plain.db", create_host_schema=True) as recall:
        recall.start()
        recall.warm()
        assert warming_threads() == []


@attrs.define
class SteppedStore:
    """A vector store with `rows` to warm per app, whose steps the test can hold."""

    rows: dict[int, int]
    asked: list[tuple[int, int]] = attrs.Factory(list)
    gate: threading.Event | None = None
    entered: threading.Event = attrs.Factory(threading.Event)
    fail: bool = False

    def vector_memory(self) -> VectorMemory:
        return VectorMemory(
            tuple(AppVectors(AppId(a), n, n, newest=a) for a, n in sorted(self.rows.items()))
        )

    def warm(self, app_id: AppId, limit: int) -> int:
        self.asked.append((app_id, limit))
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(10)
        if self.fail:
            raise StorageBusy("the database is locked")
        step = min(limit, self.rows[app_id])
        self.rows[app_id] -= step
        return step


def stepped(store: SteppedStore, sleeps: list[float]) -> Warming:
    turns = Turns(0.001, 0.00005, clock=iter(range(10**6)).__next__, sleep=sleeps.append)
    clock = iter(x * 0.0005 for x in range(10**6)).__next__  # each step takes 0.5 ms
    return Warming(store, turns, WarmingSteps(first_rows=64, min_rows=32), clock)  # type: ignore[arg-type]


def test_warming_runs_the_plan_in_steps_taking_turns() -> None:
    store = SteppedStore({1: 100, 2: 1000})
    sleeps: list[float] = []
    assert stepped(store, sleeps).run() == 1100
    assert [app for app, _ in store.asked][:2] == [2, 2]  # app 2 was written last
    limits = [limit for app, limit in store.asked if app == 2]
    assert limits[:3] == [64, 128, 256]  # half a slice a step: twice as many next
    loaded = 7  # app 2 in five steps and app 1 in two (then each says it is done)
    assert len(store.asked) == loaded + 2
    assert sleeps == [0.00005] * (loaded - 1)  # a pause between the steps
    assert store.rows == {1: 0, 2: 0}


def test_stop_ends_warming_after_the_step_in_flight() -> None:
    gate = threading.Event()
    store = SteppedStore({1: 10**6}, gate=gate)
    warming = stepped(store, [])
    warming.start()
    assert store.entered.wait(10)
    assert warming.running
    assert warming_threads() == [WARMING]
    gate.set()
    assert warming.stop()
    assert not warming.running
    assert warming_threads() == []
    assert store.rows[1] > 0  # it stopped, it did not finish


def test_a_failing_step_ends_warming_quietly() -> None:
    store = SteppedStore({1: 100}, fail=True)
    warming = stepped(store, [])
    warming.start()
    assert until(lambda: not warming.running)
    assert warming.stop()
    assert len(store.asked) == 1
