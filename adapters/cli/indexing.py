"""Run the indexer to the end in the foreground, with honest progress: the count is the
messages processed so far, the total is that plus what is still pending (recounted
every second, estimated in between), so the bar never passes 100% and an empty backlog
shows no bar at all."""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from chat_recall.adapters.cli.progress import Reporter
from chat_recall.application.service import ChatRecall
from chat_recall.domain.wording import counted

RECOUNT_SECONDS = 1.0


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

    @property
    def nothing_to_do(self) -> bool:
        return not (self.indexed or self.deleted or self.purged or self.embedded)


def drain(
    recall: ChatRecall, progress: Reporter, clock: Callable[[], float] = time.monotonic
) -> DrainReport:
    started = clock()
    counted_at = started
    planning = recall.indexer.planning
    apart_before, failures_before = planning.planned_apart, planning.failures
    pending = recall.dirty.backlog().messages
    indexed = deleted = purged = batches = since_count = embedded = 0
    longest = 0.0
    try:
        while True:
            report = recall.indexer.run_batch()
            if report.rest_seconds:
                time.sleep(report.rest_seconds)  # the host is writing: make way
            batches += 1
            indexed += report.indexed
            deleted += report.deleted
            purged += report.purged
            since_count += report.indexed + report.deleted
            if report.embedding is not None:
                embedded += report.embedding.embedded
            longest = max(longest, report.duration_seconds)
            now = clock()
            if not report.did_work or now - counted_at >= RECOUNT_SECONDS:
                backlog = recall.dirty.backlog()
                if not report.did_work and backlog.is_empty:
                    break
                pending, since_count, counted_at = backlog.messages, 0, now
            done = indexed + deleted
            estimate = max(pending - since_count, 0)
            note = counted(done, "message")
            if embedded:
                note += f", {embedded:,} embedded"
            if report.waiting_for is not None:
                note += f" (another indexer is at work: {report.waiting_for}; waiting)"
            progress.update(done, done + estimate, note)
    finally:
        recall.indexer.release_claim()
        progress.close()
    return DrainReport(
        indexed,
        deleted,
        purged,
        batches,
        clock() - started,
        longest,
        planned_apart=planning.planned_apart - apart_before,
        planning_failures=planning.failures - failures_before,
        embedded=embedded,
    )


def summary(report: DrainReport, verb: str = "indexed") -> str:
    if report.nothing_to_do:
        return "nothing to index: the index is up to date"
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
    return line
