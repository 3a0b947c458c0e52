"""While chat-recall holds the database's write lock, the interpreter's cyclic garbage
collector does not run on its own.

A full (generation 2) collection walks every container object of the process while it
holds the GIL: in a process with a large heap it takes tens of milliseconds (measured in
the scale benchmark's process during a 1M backfill: 42-118 ms). One that starts while a
write transaction of ours is open, in our thread between two statements or in any other
thread while ours waits for the GIL, keeps the lock held that long, and the
transaction's time limit cannot end it: SQLite is not running to be interrupted, and the
watchdog needs the GIL too (it fired 71 and 78 ms late in such a run). So while any
write transaction of ours is open, automatic collection is off; it comes back when the
last one ends, and the collection that was due runs at the next allocation, with the
lock released. Our transactions are short (a batch's is limited to 15 ms), so the
garbage they leave waits that long. Only what we switched off is switched back on: if
collection was off when the first transaction began (the host's choice), it stays off.
A host that switches it off while one of ours is open finds it on again afterwards (the
two cannot be told apart); an explicit `gc.collect()` still runs at once.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_open = 0
_switched_off = False  # by us, at the first of the open transactions


@contextlib.contextmanager
def collection_deferred() -> Iterator[None]:
    global _open, _switched_off
    with _lock:
        if _open == 0 and gc.isenabled():
            gc.disable()
            _switched_off = True
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0 and _switched_off:
                _switched_off = False
                gc.enable()
