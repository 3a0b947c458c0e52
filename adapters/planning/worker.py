"""A planning process (see `processes.py`): reads an opener and the markup policy, then
batches of markers from stdin; loads their rows through its own read-only connection,
plans each batch (domain `plan_batch`) and writes it back as plain tuples. It ends when
its stdin ends: when the indexer stops it, or its parent died."""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import sys
import threading
import time
from typing import IO, Any

from chat_recall.adapters.planning.processes import batch_to_wire, read_frame, write_bytes
from chat_recall.application.planning import load_rows
from chat_recall.domain.indexing import plan_batch
from chat_recall.domain.model import MessageId, MessageMarker
from chat_recall.domain.ports import MessageRepo
from chat_recall.domain.projection import MarkupPolicy

PLANNING_NICENESS = 10


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent decides. (This is
    # a process of chat-recall's own, never the host's.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Lower priority than the indexer (and the host): on a busy machine the process
    # holding the write lock gets the CPU first, so its transactions stay short.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(PLANNING_NICENESS)
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything a library prints goes to stderr, never into the replies
    sys.stdout = sys.stderr
    first = read_frame(requests)
    if first is None:
        return  # the parent closed the pipe: stopped, or it died
    opener, policy = pickle.loads(first)
    serve(opener.open(), policy, requests, replies)


def serve(repo: MessageRepo, policy: MarkupPolicy, requests: IO[bytes], replies: IO[bytes]) -> None:
    """Plan batch after batch; a thread sends the replies, so the next batch is planned
    while a large reply waits in the pipe for the indexer to read it."""
    outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    sender = threading.Thread(target=_send, args=(outbox, replies), daemon=True)
    sender.start()
    try:
        while (data := read_frame(requests)) is not None:
            request: list[tuple[int, int]] = pickle.loads(data)
            outbox.put(_reply(repo, policy, request))
    finally:
        outbox.put(None)
        sender.join()


def _reply(repo: MessageRepo, policy: MarkupPolicy, request: list[tuple[int, int]]) -> bytes:
    started = time.perf_counter()
    reply: tuple[str, Any]
    try:
        reply = ("ok", plan(repo, policy, request))
    except Exception as error:
        reply = ("error", error)
    seconds = time.perf_counter() - started
    try:
        return pickle.dumps((reply, seconds), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # an exception that does not pickle
        failure = RuntimeError(f"{type(reply[1]).__name__}: {reply[1]} ({error})")
        return pickle.dumps((("error", failure), seconds))


def _send(outbox: queue.SimpleQueue[bytes | None], replies: IO[bytes]) -> None:
    while (data := outbox.get()) is not None:
        try:
            write_bytes(replies, data)
        except OSError:  # the parent closed the pipe (stopped, or died)
            os._exit(0)


def plan(repo: MessageRepo, policy: MarkupPolicy, request: list[tuple[int, int]]) -> object:
    markers = [MessageMarker(MessageId(id_), seq) for id_, seq in request]
    rows, unreadable = load_rows(repo, markers)
    return batch_to_wire(plan_batch(markers, rows, policy, unreadable))
