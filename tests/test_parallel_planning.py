"""Backfill batches planned ahead, in planning processes (`application/planning.py`).

The hand-out logic runs here on the in-memory adapters with an in-process stand-in for a
planning process; the real processes are tested end to end on SQLite files: the same
index as planning in-process, poison rows quarantined through them, a process that dies
falls back without losing a marker, and none outlives the facade or its parent."""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.cli.main import main
from chat_recall.adapters.planning.processes import (
    IN_FLIGHT_PER_PROCESS,
    PlanningFailed,
    ProcessPlanning,
)
from chat_recall.adapters.planning.worker import plan
from chat_recall.adapters.sqlite.index_store import SqliteFts5IndexStore
from chat_recall.adapters.sqlite.unit_of_work import SqliteIndexUnitOfWork
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.application import planning as planning_module
from chat_recall.application.indexer import IndexerSettings
from chat_recall.application.planning import InProcessPlanning, PlanningSettings, Turns
from chat_recall.application.service import ChatRecall
from chat_recall.domain.errors import StorageBusy
from chat_recall.domain.host_values import UnreadableReason
from chat_recall.domain.indexing import BatchSizing, PlannedBatch
from chat_recall.domain.messages import Role
from chat_recall.domain.model import AppId, Maintenance, MessageId, MessageMarker
from chat_recall.domain.pacing import PacingRule
from chat_recall.domain.ports import MessageRepo
from chat_recall.domain.projection import MarkupPolicy
from tests.benchmarks.fixture import generate

# -- the hand-out logic, with an in-process stand-in ---------------------------------------


@attrs.frozen
class InlineOpener:
    repo: MessageRepo

    def open(self) -> MessageRepo:
        return self.repo


@attrs.define
class InlineWorker:
    """Plans each batch as it is sent (so a host write after that is one the batch
    did not see); `ready` and `reply` let a test stand in for a busy or failing one."""

    repo: MessageRepo
    policy: MarkupPolicy
    replies: collections.deque[Any] = attrs.field(factory=collections.deque)
    sent: list[list[int]] = attrs.field(factory=list)
    busy: bool = False
    reply: Any = None  # instead of the planned batch: an exception to raise or a reply

    @property
    def waiting(self) -> int:
        return len(self.replies)

    def send(self, markers: Sequence[MessageMarker]) -> None:
        request = [(marker.id, marker.seq) for marker in markers]
        self.sent.append([marker.id for marker in markers])
        self.replies.append((("ok", plan(self.repo, self.policy, request)), 0.001))

    @property
    def pid(self) -> int:
        return os.getpid()

    def ready(self) -> bool:
        return not self.busy

    def receive(self) -> tuple[tuple[str, Any], float]:
        reply = self.replies.popleft()
        if isinstance(self.reply, Exception):
            raise self.reply
        return reply if self.reply is None else self.reply

    def close(self) -> None:
        self.replies.clear()


@attrs.define
class Harness:
    recall: ChatRecall
    ids: list[int]
    workers: list[InlineWorker] = attrs.field(factory=list)

    def planning(self, processes: int = 1, min_backlog: int = 1) -> Planning:
        recall = self.recall

        def start(_opener: object, policy: MarkupPolicy) -> InlineWorker:
            worker = InlineWorker(recall.repo, policy)
            self.workers.append(worker)
            return worker

        here = InProcessPlanning(recall.dirty, recall.clock, Turns.of(PacingRule()))
        return Planning(
            ProcessPlanning(
                here,
                recall.dirty,
                recall.clock,
                PlanningSettings(processes=processes, min_backlog=min_backlog),
                InlineOpener(recall.repo),
                start,
            ),
            recall,
        )

    def write(self, planned: PlannedBatch) -> None:
        with self.recall.unit_of_work.transaction() as writer:
            writer.clear(planned.batch.cleared)
            writer.remove(planned.batch.deletes)
            writer.put(planned.batch.upserts)
            writer.quarantine(planned.batch.quarantined)

    def pending(self) -> set[int]:
        return {marker.id for marker in self.recall.dirty.pending_messages(1000)}


@attrs.define
class Planning:
    """The planner as the indexer asks it, with the facade's repo and policy."""

    planner: ProcessPlanning
    recall: ChatRecall

    def next(self, size: int) -> PlannedBatch | None:
        """The next batch planned apart; None once the planner would plan it here."""
        return self.planner.apart(size, self.recall.repo, self.recall.policy)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.planner, name)


@pytest.fixture
def harness() -> Iterator[Harness]:
    recall = bootstrap.in_memory()
    chat_id = recall.host.create_chat(1, "Auth", 1)
    ids = [
        recall.host.add_message(chat_id, Role.USER, f"message number {index}", index + 2)
        for index in range(12)
    ]
    yield Harness(recall, ids)
    recall.close()


def batch_ids(planned: PlannedBatch | None) -> list[int]:
    assert planned is not None
    return [marker.id for marker in planned.markers]


def test_batches_are_handed_out_past_the_ones_in_flight_and_the_pool_closes_at_the_end(
    harness: Harness,
) -> None:
    planning = harness.planning()
    seen: list[list[int]] = []
    while (planned := planning.next(4)) is not None:
        seen.append(batch_ids(planned))
        harness.write(planned)
    assert seen == [harness.ids[0:4], harness.ids[4:8], harness.ids[8:12]]
    # each was planned by the process, handed out while the one before was written
    assert harness.workers[0].sent == seen
    assert planning.planned_apart == 3
    assert harness.pending() == set()
    assert planning.processes == 0  # drained: the processes are stopped


def test_rows_changed_or_deleted_while_their_batch_is_in_flight_are_never_written_stale(
    harness: Harness,
) -> None:
    recall = harness.recall
    planning = harness.planning()
    first = planning.next(4)
    changed, deleted = harness.ids[5], harness.ids[9]  # both in batches in flight
    assert [changed in sent or deleted in sent for sent in harness.workers[0].sent[1:]] == [
        True,
        True,
    ]
    recall.host.update_message(MessageId(changed), "rewritten later")
    recall.host.delete_message(MessageId(deleted))
    assert first is not None
    harness.write(first)
    while (planned := planning.next(4)) is not None:
        harness.write(planned)
    # its batch found its marker set again and left it; it was handed out once more
    sent = [message_id for batch in harness.workers[0].sent for message_id in batch]
    assert sent.count(changed) == 2
    assert sent.count(deleted) == 1
    assert harness.pending() == set()
    (document,) = recall.index.documents(1, [MessageId(changed)])
    assert document.body == "rewritten later"
    assert deleted not in recall.index.document_ids(1)
    assert set(recall.index.document_ids(1)) == set(harness.ids) - {deleted}


def test_a_small_backlog_is_planned_in_process(harness: Harness) -> None:
    planning = harness.planning(min_backlog=13)
    assert planning.next(4) is None
    assert harness.workers == []


def test_while_the_processes_are_busy_this_process_plans_the_next_batch() -> None:
    harness = many(40)
    planning = harness.planning()
    first = planning.next(4)
    assert first is not None
    assert planning.planned_here == 0
    harness.write(first)
    harness.workers[0].busy = True
    stolen = planning.next(4)
    assert stolen is not None
    assert planning.planned_here == 1
    ahead = 4 + 4 * IN_FLIGHT_PER_PROCESS  # the batch written, then those in flight
    assert batch_ids(stolen) == harness.ids[ahead : ahead + 4]
    assert planning.planned_here == 1


def many(count: int) -> Harness:
    recall = bootstrap.in_memory()
    chat_id = recall.host.create_chat(1, "c", 1)
    ids = [recall.host.add_message(chat_id, Role.USER, f"m {i}", i + 2) for i in range(count)]
    return Harness(recall, ids)


def test_busy_processes_never_hand_the_same_marker_out_twice() -> None:
    harness = many(40)
    planning = harness.planning()
    seen: list[int] = []
    busy = False
    while (planned := planning.next(4)) is not None:
        seen.extend(batch_ids(planned))
        harness.write(planned)
        busy = not busy
        harness.workers[0].busy = busy
    assert sorted(seen) == harness.ids  # each once, whoever planned it
    assert planning.planned_here > 0
    assert planning.planned_apart > 0


def test_a_failing_process_falls_back_to_planning_here_and_keeps_every_marker(
    harness: Harness,
) -> None:
    planning = harness.planning()
    first = planning.next(4)
    assert first is not None
    harness.write(first)
    harness.workers[0].reply = PlanningFailed("the planning process ended")
    assert planning.next(4) is None
    assert (planning.failures, planning.available, planning.processes) == (1, False, 0)
    assert harness.pending() == set(harness.ids[4:])
    harness.recall.indexer.run_until_idle()
    assert set(harness.recall.index.document_ids(1)) == set(harness.ids)


def test_a_systemic_error_of_a_process_is_raised_and_the_pool_stays(harness: Harness) -> None:
    planning = harness.planning()
    first = planning.next(4)
    assert first is not None
    harness.write(first)
    harness.workers[0].reply = (("error", StorageBusy("database is locked")), 0.0)
    with pytest.raises(StorageBusy):
        planning.next(4)
    harness.workers[0].reply = None
    assert planning.available
    assert harness.pending() == set(harness.ids[4:])
    assert batch_ids(planning.next(4)) == harness.ids[4:8]


# -- real planning processes, end to end on SQLite files ----------------------------------

PARALLEL = IndexerSettings(
    sizing=BatchSizing(initial=16, minimum=1, maximum=32),
    pacing=PacingRule(first_look_seconds=0.0),  # quiet from the start
    planning=PlanningSettings(processes=1, min_backlog=1),
)
IN_PROCESS = attrs.evolve(PARALLEL, planning=PlanningSettings(processes=0))


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small heavy-profile history (bulky tags, secrets to redact) and odd rows that
    must be quarantined: text that is not UTF-8, a time nothing reads."""
    path = tmp_path_factory.mktemp("parallel") / "history.db"
    generate(path, messages=300, apps=3, profile="heavy")
    connection = sqlite3.connect(path)
    with connection:
        chat_id = connection.execute("SELECT min(id) FROM chats").fetchone()[0]
        connection.executemany(
            "INSERT INTO messages(chat_id, role, content, created_at) VALUES (?, ?, ?, ?)",
            [
                (chat_id, "user", b"sessions \xff\xfe broken", 1_700_000_000),
                (chat_id, "assistant", "a time nothing reads", ""),
            ],
        )
        connection.execute(
            "UPDATE messages SET content = CAST(content AS TEXT) WHERE typeof(content) = 'blob'"
        )
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # copies take the file alone
    connection.close()
    return path


def opened(history: Path, directory: Path, settings: IndexerSettings) -> ChatRecall:
    copy = directory / "copy.db"
    shutil.copy(history, copy)
    return bootstrap.sqlite(copy, settings=settings)


def snapshot(recall: ChatRecall) -> tuple[object, ...]:
    apps = [1, 2, 3]
    documents = [recall.index.documents(app, recall.index.document_ids(app)) for app in apps]
    return (documents, recall.index.quarantine(1000).rows)


@pytest.fixture(scope="module")
def in_process(history: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[object, ...]:
    with opened(history, tmp_path_factory.mktemp("in_process"), IN_PROCESS) as recall:
        recall.indexer.run_until_idle()
        assert isinstance(recall.indexer.planner, InProcessPlanning)  # no processes
        return snapshot(recall)


def test_a_parallel_backfill_builds_the_same_index_and_quarantines_the_same_rows(
    history: Path, tmp_path: Path, in_process: tuple[object, ...]
) -> None:
    with opened(history, tmp_path, PARALLEL) as recall:
        recall.indexer.run_until_idle()
        planning = recall.indexer.planner
        assert planning.planned_apart > 0
        assert planning.failures == 0
        assert planning.processes == 0  # stopped once the backlog was drained
        assert snapshot(recall) == in_process
    quarantined = in_process[1]
    assert {row.reason for row in quarantined} == {  # type: ignore[attr-defined]
        UnreadableReason.CONTENT_NOT_UTF8,
        UnreadableReason.TIMESTAMP_UNPARSEABLE,
    }


def test_a_planning_process_that_dies_falls_back_without_losing_a_marker(
    history: Path, tmp_path: Path, in_process: tuple[object, ...]
) -> None:
    with opened(history, tmp_path, PARALLEL) as recall:
        planning = recall.indexer.planner
        while planning.processes == 0:
            recall.indexer.run_batch()
        for pid in planning.process_ids:
            os.kill(pid, signal.SIGKILL)
        recall.indexer.run_until_idle()
        assert (planning.failures, planning.available, planning.processes) == (1, False, 0)
        assert snapshot(recall) == in_process


def test_a_planning_process_that_cannot_start_falls_back(
    history: Path,
    tmp_path: Path,
    in_process: tuple[object, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", shutil.which("false") or "/bin/false")
    with opened(history, tmp_path, PARALLEL) as recall:
        recall.indexer.run_until_idle()
        planning = recall.indexer.planner
        assert (planning.failures, planning.planned_apart, planning.processes) == (1, 0, 0)
        assert snapshot(recall) == in_process


def test_the_next_planned_batch_is_taken_in_the_gap_after_each_write(
    history: Path,
    tmp_path: Path,
    in_process: tuple[object, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Taking a planned batch (receiving and unpickling it, building its documents)
    cost the indexer's thread 5-9 us a message between its transactions, on the
    backfill's critical path; it is done in the gap after a batch's write, where the
    thread slept 2 ms before the maintenance step."""
    events: list[str] = []
    transaction = SqliteIndexUnitOfWork.transaction
    take, maintain = ProcessPlanning.apart, SqliteFts5IndexStore.maintain

    @contextlib.contextmanager
    def writing(self: SqliteIndexUnitOfWork, **limits: Any) -> Iterator[Any]:
        with transaction(self, **limits) as writer:
            yield writer
        events.append("w")

    def taking(
        self: ProcessPlanning, size: int, repo: MessageRepo, policy: MarkupPolicy
    ) -> PlannedBatch | None:
        events.append("t")
        return take(self, size, repo, policy)

    def maintaining(self: SqliteFts5IndexStore) -> Maintenance:
        events.append("m")
        return maintain(self)

    monkeypatch.setattr(SqliteIndexUnitOfWork, "transaction", writing)
    monkeypatch.setattr(ProcessPlanning, "apart", taking)
    monkeypatch.setattr(SqliteFts5IndexStore, "maintain", maintaining)
    with opened(history, tmp_path, PARALLEL) as recall:
        recall.indexer.run_until_idle()
        assert recall.indexer.planner.planned_apart >= 1
        assert snapshot(recall) == in_process
    assert "wtmwtmwtm" in "".join(events)  # not "twmtwm": taken before each write


@attrs.define
class ManualClock:
    now: float = 1_000.0

    def monotonic(self) -> float:
        return self.now


def test_batches_planned_apart_while_the_host_writes_are_written_in_its_parts(
    history: Path, tmp_path: Path, in_process: tuple[object, ...]
) -> None:
    """A host write switches the pace to the writing host's: the batches planned
    apart meanwhile are written in the smaller parts its budget allows, and a row the
    host changed after its batch was planned is indexed as it is now."""
    copy = tmp_path / "copy.db"
    shutil.copy(history, copy)
    with bootstrap.sqlite(copy, settings=PARALLEL) as recall:
        planning = recall.indexer.planner
        while planning.planned_apart == 0:
            recall.indexer.run_batch()
        host = sqlite3.connect(copy)  # another connection: the host writes
        with host:
            host.execute("UPDATE messages SET content = 'edited words' WHERE id = 1")
        host.close()
        report = recall.indexer.run_batch()
        assert report.indexed > 0
        pacer = recall.index.database.pacer  # type: ignore[attr-defined]
        assert pacer.writing()
        assert recall.indexer.batch_size < report.batch_size  # its parts: the writing size
        recall.indexer.run_until_idle()
        (document,) = recall.index.documents(AppId(1), [MessageId(1)])
        documents, quarantined = snapshot(recall)
    assert document.body == "edited words"
    assert quarantined == in_process[1]
    assert [len(app) for app in documents] == [len(app) for app in in_process[0]]  # type: ignore[attr-defined]


def test_closing_the_facade_ends_the_planning_processes(history: Path, tmp_path: Path) -> None:
    recall = opened(history, tmp_path, PARALLEL)
    planning = recall.indexer.planner
    recall.indexer.run_batch()
    pids = planning.process_ids
    assert pids
    recall.close()
    assert planning.processes == 0
    assert not any(alive(pid) for pid in pids)  # exited and reaped by close()


def test_planning_processes_end_when_their_parent_is_killed(history: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(history, copy)
    script = textwrap.dedent(
        f"""
        import sys
        from chat_recall.adapters import bootstrap
        from tests.test_parallel_planning import PARALLEL
        recall = bootstrap.sqlite({str(copy)!r}, settings=PARALLEL)
        recall.indexer.run_batch()
        print(*recall.indexer.planner.process_ids, flush=True)
        sys.stdin.read()  # until killed
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parent.parent,
        text=True,
    )
    assert parent.stdout is not None
    pids = [int(pid) for pid in parent.stdout.readline().split()]
    assert pids
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


# -- chat-recall's own processes plan in a planning process --------------------------------


@pytest.mark.parametrize(("cpus", "processes"), [(1, 0), (2, 1), (16, 1)])
def test_a_process_of_chat_recalls_own_plans_in_one_process_where_two_cpus_are_usable(
    cpus: int, processes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(planning_module, "usable_cpus", lambda: cpus)
    assert PlanningSettings.for_own_process().processes == processes
    assert PlanningSettings().processes == 0  # an embedding host starts none unless it asks


def test_usable_cpus_counts_this_process_affinity() -> None:
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert planning_module.usable_cpus() == expected


@pytest.fixture(scope="module")
def longer_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Long enough for a few dozen batches."""
    path = tmp_path_factory.mktemp("longer") / "history.db"
    generate(path, messages=2_500, apps=3, profile="heavy")
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return path


@pytest.fixture(scope="module")
def longer_in_process(
    longer_history: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[object, ...]:
    directory = tmp_path_factory.mktemp("longer_in_process")
    with opened(longer_history, directory, IN_PROCESS) as recall:
        recall.indexer.run_until_idle()
        return snapshot(recall)


@pytest.fixture
def small_backlogs_planned_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's default planning, but started for any backlog (the history here is a
    few thousand messages; the default waits for 5,000)."""
    own = PlanningSettings.for_own_process
    monkeypatch.setattr(planning_module, "usable_cpus", lambda: 2)
    monkeypatch.setattr(
        PlanningSettings,
        "for_own_process",
        classmethod(lambda cls: attrs.evolve(own(), min_backlog=1)),
    )


def cli_indexed(
    history: Path,
    directory: Path,
    capsys: pytest.CaptureFixture[str],
    *flags: str,
    engine: Engine = Engine.SQLITE,
) -> tuple[str, tuple[object, ...]]:
    """`chat-recall index` over a copy of `history` installed with `engine`: what it
    printed, and the index it built."""
    copy = directory / "copy.db"
    shutil.copy(history, copy)
    bootstrap.sqlite(copy, engine=engine, settings=IN_PROCESS).close()  # installs
    assert main(["index", "--db", str(copy), "--quiet", *flags]) == 0
    printed = capsys.readouterr().out
    with bootstrap.sqlite(copy, engine=None, settings=IN_PROCESS) as recall:
        assert recall.dirty.backlog().is_empty
        return printed, snapshot(recall)


@pytest.mark.usefixtures("small_backlogs_planned_apart")
@pytest.mark.parametrize(
    ("flags", "engine"),
    [
        ([], Engine.SQLITE),
        (["--planning-processes", "0"], Engine.SQLITE),
        ([], Engine.TANTIVY),
    ],
)
def test_the_index_command_plans_in_a_planning_process_unless_told_not_to_and_says_so(
    flags: list[str],
    engine: Engine,
    longer_history: Path,
    tmp_path: Path,
    longer_in_process: tuple[object, ...],
    capsys: pytest.CaptureFixture[str],
) -> None:
    printed, built = cli_indexed(longer_history, tmp_path, capsys, *flags, engine=engine)
    assert ("batches planned by a planning process" in printed) == (not flags), printed
    assert "failed" not in printed
    assert built == longer_in_process


def test_a_planning_process_that_fails_is_reported_by_the_index_command(
    small_backlogs_planned_apart: None,
    longer_history: Path,
    tmp_path: Path,
    longer_in_process: tuple[object, ...],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", shutil.which("false") or "/bin/false")
    printed, built = cli_indexed(longer_history, tmp_path, capsys)
    assert "a planning process failed once (planned here instead; see the log)" in printed
    assert built == longer_in_process
