"""How fresh a search says the index is (`index_status`, `index_coverage.lag_seconds`),
with the time under the test's control: no sleeps."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import attrs

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite_host.schema import REFERENCE_HOST_DDL
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.search_chats import CURRENT_WITHIN_SECONDS
from chat_recall.domain.pacing import PacingRule
from chat_recall.domain.ports import Clock

REST_SECONDS = 30.0


@attrs.define
class HostWritingDuringRests:
    """The indexer's clock and its pacer's: time moves only while the pacer rests, and
    halfway through every rest the host (on a connection of its own, as an app in
    another process) writes a message, as a host that was let in does."""

    path: Path
    now: float = attrs.Factory(time.monotonic)
    written: list[tuple[float, str]] = attrs.Factory(list)

    def monotonic(self) -> float:
        return self.now

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds / 2
        word = f"zqrest{len(self.written)}w"
        connection = sqlite3.connect(self.path)
        with connection:
            connection.execute(
                "INSERT INTO messages(chat_id, role, content, created_at) VALUES (1, 'user', ?, 2)",
                (f"written while the indexer rested {word}",),
            )
        connection.close()
        self.written.append((self.now, word))
        self.now += seconds / 2


def test_the_lag_a_search_reports_covers_every_message_the_index_lacks(tmp_path: Path) -> None:
    """An indexer that read every marker records that it caught up as of that read. The
    record is a write, made after the rest the pacer asks for, and the host writes
    during that rest: the moment recorded is still the read's, so a search never
    calls a message the index lacks younger than it is (nor the index current while
    one older than CURRENT_WITHIN_SECONDS waits)."""
    path = tmp_path / "host.db"
    host = sqlite3.connect(path)  # the app's database, with a chat, before chat-recall
    host.executescript(REFERENCE_HOST_DDL)
    with host:
        host.execute("INSERT INTO chats(id, app_id, title, created_at) VALUES (1, 1, 'live', 1)")
    host.close()
    clock = HostWritingDuringRests(path)
    recall = bootstrap.sqlite(path, overrides={Clock: clock})
    pacer = recall.index.database.pacer  # type: ignore[attr-defined]
    # Every rest is REST_SECONDS on the test's clock: a host that counts as quiet at once
    # (`writing_seconds` 0) gets the quiet rest whatever it writes, and however long a
    # transaction of ours took on a loaded machine (`limit_seconds`).
    pacer.rule = PacingRule(
        first_look_seconds=0.0,
        writing_seconds=0.0,
        quiet_rest_seconds=REST_SECONDS,
        limit_seconds=60 * REST_SECONDS,
    )
    clock.now = time.monotonic()  # on from the moment the pacer started, by its own clock
    pacer.clock, pacer.sleep = clock, clock.sleep

    assert recall.indexer.run_batch().drained  # the first record of freshness

    lacking = []  # (age, answer) of each host write the index lacks
    for at, word in clock.written:
        output = json.loads(recall.search_chats(CallContext(1), {"query": word}))
        if not output["results"]:
            lacking.append((clock.now - at, output))
    assert lacking, "no host write landed after the indexer's read"
    assert len(lacking) < len(clock.written), "the batch indexed none of the host's writes"
    oldest = max(age for age, _ in lacking)
    assert oldest > CURRENT_WITHIN_SECONDS  # (every rest took REST_SECONDS)
    for _, output in lacking:
        assert output["index_status"] == "indexing"
        # every message written before `lag_seconds` ago is searchable
        assert output["index_coverage"]["lag_seconds"] >= oldest
    recall.close()
