"""Run the indexer in the foreground until it has caught up, with honest progress: the
count is the messages processed so far, the total is that plus what is still pending
(recounted every second, estimated in between), so the bar never passes 100% and an
empty backlog shows no bar at all.

A command ends once it has caught up with what was pending when it started: at the
first batch that took every marker pending when it read them (`BatchReport.drained`),
however fast the host writes meanwhile; what arrives after that is the app's own
indexer's (or the next command's). A host that writes faster than the command can index
keeps it going until it has processed as many messages again as were pending at its
start (with the messages of the chats it expanded; at least `ARRIVALS_AT_LEAST`), no
longer. While another indexer holds the queue,
the command waits until that one has caught up with what was pending at its start.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from chat_recall.adapters.cli.progress import Reporter
from chat_recall.application.indexer import BatchReport
from chat_recall.application.service import ChatRecall
from chat_recall.domain.wording import counted

RECOUNT_SECONDS = 1.0
ARRIVALS_AT_LEAST = 1_000


@attrs.frozen
class DrainReport:
    indexed: int  # messages with searchable text, (re)written to the index
    # messages left out of the index (removed if there): no searchable text, a role
    # that is never indexed, no chat, or deleted meanwhile (`status` lists them by kind)
    deleted: int
    purged: int  # documents of deleted messages cleaned out of the index
    batches: int
    seconds: float
    longest_batch_seconds: float
    # batches planned ahead by planning processes, and planning processes that failed
    # (their batches were planned in this process instead)
    planned_apart: int = 0
    planning_failures: int = 0
    embedded: int = 0  # vectors made by the semantic layer
    # messages still to index at the end: they arrived while the command ran (not those
    # it indexed that wait for their engine's publish: closing publishes them)
    left: int = 0
    # the host wrote faster than the command indexed: it stopped at its bound
    outpaced: bool = False
    waited_for: str | None = None  # another indexer did the work meanwhile

    @property
    def nothing_to_do(self) -> bool:
        return not (self.indexed or self.deleted or self.purged or self.embedded)


@attrs.define
class _Tally:
    work: int  # pending at the start, and the messages of the chats expanded since
    indexed: int = 0
    deleted: int = 0
    purged: int = 0
    batches: int = 0
    longest: float = 0.0
    waited_for: str | None = None
    embedded: int = 0

    def add(self, report: BatchReport) -> None:
        self.work += report.expanded_messages  # a chat's messages: work, not arrivals
        self.batches += 1
        self.indexed += report.indexed
        self.deleted += report.deleted
        self.purged += report.purged
        self.longest = max(self.longest, report.duration_seconds)
        if report.embedding is not None:
            self.embedded += report.embedding.embedded

    @property
    def processed(self) -> int:
        return self.indexed + self.deleted

    @property
    def outpaced(self) -> bool:
        return self.processed >= self.work + max(self.work, ARRIVALS_AT_LEAST)


def drain(
    recall: ChatRecall, progress: Reporter, clock: Callable[[], float] = time.monotonic
) -> DrainReport:
    started = clock()
    planner = recall.indexer.planner
    apart_before, failures_before = planner.planned_apart, planner.failures
    tally = _Tally(recall.dirty.backlog().messages)
    pending, counted_at, since_count = tally.work, started, 0
    try:
        while True:
            report = recall.indexer.run_batch()
            if report.waiting_for is not None:
                tally.waited_for = report.waiting_for
                if _caught_up_elsewhere(recall, clock() - started):
                    break
                note = f"another indexer is at work: {report.waiting_for}; waiting"
                progress.update(
                    tally.processed, None, f"{counted(tally.processed, 'message')} ({note})"
                )
                time.sleep(report.rest_seconds)
                continue
            tally.add(report)
            # Caught up: the text index, and the vectors (their step runs in a batch
            # with no text to index, so one more batch follows a drained one).
            caught_up = report.drained and (recall.indexer.embedding is None or not report.did_work)
            if caught_up or tally.outpaced:
                break
            since_count += report.indexed + report.deleted
            now = clock()
            if now - counted_at >= RECOUNT_SECONDS:
                pending, since_count, counted_at = recall.dirty.backlog().messages, 0, now
            estimate = max(pending - since_count, 0)
            note = counted(tally.processed, "message")
            if tally.embedded:
                note += f", {tally.embedded:,} embedded"
            progress.update(tally.processed, tally.processed + estimate, note)
    finally:
        recall.indexer.release_claim()
        progress.close()
    return DrainReport(
        tally.indexed,
        tally.deleted,
        tally.purged,
        tally.batches,
        clock() - started,
        tally.longest,
        planned_apart=planner.planned_apart - apart_before,
        planning_failures=planner.failures - failures_before,
        left=recall.dirty.backlog().to_index,
        outpaced=tally.outpaced,
        waited_for=tally.waited_for,
        embedded=tally.embedded,
    )


def _caught_up_elsewhere(recall: ChatRecall, running_for: float) -> bool:
    """Whether the indexer holding the queue has caught up since this command started
    (or nothing is pending at all)."""
    ago = recall.dirty.caught_up_ago()
    return (ago is not None and ago <= running_for) or recall.dirty.backlog().is_empty


def summary(report: DrainReport, verb: str = "indexed") -> str:
    if report.nothing_to_do:
        if report.waited_for is not None:
            line = f"another indexer ({report.waited_for}) indexed what was pending"
        else:
            line = "nothing to index: the index is up to date"
        return line + _left(report)
    parts = [f"{verb} {counted(report.indexed, 'message')}"]
    if report.deleted:
        parts.append(
            f"{report.deleted:,} left out (no searchable text, another role or no chat: see status)"
        )
    if report.purged:
        parts.append(f"{report.purged:,} deleted ones purged")
    line = (
        ", ".join(parts)
        + f" in {report.seconds:.1f} s (longest batch {report.longest_batch_seconds * 1000:.0f} ms)"
    )
    if report.planned_apart:
        line += (
            f"; {report.planned_apart:,} of {counted(report.batches, 'batch', 'batches')} "
            "planned by a planning process"
        )
    if report.embedded:
        line += f"; {report.embedded:,} messages embedded for semantic search"
    if report.planning_failures:
        times = "once" if report.planning_failures == 1 else f"{report.planning_failures} times"
        line += f"; a planning process failed {times} (planned here instead; see the log)"
    return line + _left(report)


def _left(report: DrainReport) -> str:
    if not report.left:
        return ""
    if report.outpaced:
        return (
            "; the host writes faster than this command indexes: "
            f"{counted(report.left, 'message')} still pending, left to the app's indexer "
            "(or the next `chat-recall index`)"
        )
    return (
        f"; {counted(report.left, 'more message', 'more messages')} arrived while it ran, "
        "left to the app's indexer (or the next `chat-recall index`)"
    )
