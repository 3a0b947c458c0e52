"""A planning process (see `application/planning.py`): reads an opener and the markup
policy, then batches of markers from stdin; loads their rows through its own read-only
connection, plans each batch (domain `plan_batch`) and writes it back as plain tuples.
It ends when its stdin ends: when the indexer stops it, or its parent died."""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from chat_recall.application.planning import batch_to_wire, load_rows
from chat_recall.domain.indexing import plan_batch
from chat_recall.domain.model import MessageId, MessageMarker
from chat_recall.domain.ports import MessageRepo
from chat_recall.domain.projection import MarkupPolicy

PLANNING_NICENESS = 10


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Lower priority than the indexer (and the host): on a busy machine the process
    # holding the write lock gets the CPU first, so its transactions stay short.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(PLANNING_NICENESS)
    requests = Connection(os.dup(0), writable=False)
    replies = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # anything a library prints goes to stderr, never into the replies
    sys.stdout = sys.stderr
    try:
        opener, policy = pickle.loads(requests.recv_bytes())
        serve(opener.open(), policy, requests, replies)
    except (EOFError, BrokenPipeError):
        pass  # the parent closed the pipes: stopped, or it died


def serve(
    repo: MessageRepo, policy: MarkupPolicy, requests: Connection, replies: Connection
) -> None:
    """Plan batch after batch; a thread sends the replies, so the next batch is planned
    while a large reply waits in the pipe for the indexer to read it."""
    outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    sender = threading.Thread(target=_send, args=(outbox, replies), daemon=True)
    sender.start()
    try:
        while True:
            try:
                request: list[tuple[int, int]] = pickle.loads(requests.recv_bytes())
            except EOFError:
                return
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


def _send(outbox: queue.SimpleQueue[bytes | None], replies: Connection) -> None:
    while (data := outbox.get()) is not None:
        try:
            replies.send_bytes(data)
        except OSError:  # the parent closed the pipe (stopped, or died)
            os._exit(0)


def plan(repo: MessageRepo, policy: MarkupPolicy, request: list[tuple[int, int]]) -> object:
    markers = [MessageMarker(MessageId(id_), seq) for id_, seq in request]
    rows, unreadable = load_rows(repo, markers)
    return batch_to_wire(plan_batch(markers, rows, policy, unreadable))
