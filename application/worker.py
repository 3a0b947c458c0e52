"""The background worker: runs the indexer's batches in a thread of the host's process.

One job: when to run the next batch. Busy, it runs them back to back (the rests between
transactions are the storage's, `WritePacer`); idle, it waits to be told of a host write
(`notify`), looks every `watch_seconds` for writes nobody told it of, and runs a batch
anyway every `poll_interval_seconds`; after a failure it waits the backoff `health`
gives. It never dies silently, and `stop` leaves nothing running.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING

import attrs

from chat_recall.application.health import error_kind

if TYPE_CHECKING:
    import logging

    from chat_recall.application.indexer import Indexer


def indexer_log() -> logging.Logger:
    """The indexer's logger, imported at the first warning: a command that never
    indexes (a search, a read) does not load logging."""
    import logging

    return logging.getLogger("chat_recall.indexer")


@attrs.define
class BackgroundWorker:
    indexer: Indexer
    _thread: threading.Thread | None = attrs.field(init=False, default=None)
    # notify() counts host writes; the idle worker waits for the count to move.
    _signal: threading.Condition = attrs.field(init=False, factory=threading.Condition)
    _notified: int = attrs.field(init=False, default=0)
    _stopping: threading.Event = attrs.field(init=False, factory=threading.Event)
    _idle: threading.Event = attrs.field(init=False, factory=threading.Event)

    def start(self) -> None:
        """Run a background worker thread (its adapters use their own connection).
        Nothing runs when the storage is read-only here (`health` says so)."""
        if self._thread is not None and self._thread.is_alive():
            return
        health = self.indexer.health
        if not health.snapshot().can_advance:
            return
        health.started()
        self._stopping.clear()
        self._idle.clear()
        self._thread = threading.Thread(target=self._work, name="chat-recall-indexer", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """Tell the worker that the host wrote something."""
        with self._signal:
            self._notified += 1
            self._idle.clear()
            self._signal.notify_all()

    def wait_until_idle(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds for the worker to find nothing left to do."""
        return self._idle.wait(timeout)

    def pause(self, seconds: float) -> None:
        """Wait `seconds`, or until `stop` is asked for."""
        self._stopping.wait(seconds)

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop after the batch in flight (markers of unprocessed work stay), and the
        planning that runs ahead. Returns True when the worker has ended."""
        self._stopping.set()
        with self._signal:
            self._signal.notify_all()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        self.indexer.planner.close()
        if thread is not None and thread.is_alive():
            return False
        self.indexer.release_claim()
        return True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _work(self) -> None:
        """The worker never dies silently: a failed batch is recorded in `health`,
        logged, and retried after a backoff that grows with consecutive failures."""
        health = self.indexer.health
        health.started()
        try:
            while not self._stopping.is_set():
                self._turn()
        finally:
            health.stopped()

    def _turn(self) -> None:
        with self._signal:
            seen = self._notified
        try:
            report = self.indexer.run_batch()
        except Exception as error:
            retry_in = self.indexer.retry_in
            indexer_log().warning(
                "indexer: batch failed (%s: %s); retrying in %.1f s",
                error_kind(error),
                type(error).__name__,
                retry_in,
                exc_info=True,
            )
            self.pause(retry_in)
            return
        if report.waiting_for is not None:  # another indexer has the queue: look again
            self.pause(report.rest_seconds)
        elif not report.did_work:
            self._wait_for_work(seen)

    def _wait_for_work(self, seen: int) -> None:
        """Idle until notified, until the host wrote without telling (looked at every
        `watch_seconds`), or for `poll_interval_seconds`."""
        woken = partial(self._woken, seen)
        with self._signal:
            if woken():
                return
            self._idle.set()
        settings = self.indexer.settings
        dirty = self.indexer.dirty
        writes = dirty.host_writes()
        waited = 0.0
        while waited < settings.poll_interval_seconds:
            with self._signal:
                if self._signal.wait_for(woken, settings.watch_seconds):
                    return
            waited += settings.watch_seconds
            if writes is not None and dirty.host_writes() != writes:
                return

    def _woken(self, seen: int) -> bool:
        return self._notified != seen or self._stopping.is_set()
