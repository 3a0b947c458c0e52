"""Two process-wide interpreter settings that hold while chat-recall holds the
database's write lock, set when the first of our write transactions begins and given
back when the last one ends (a host may run several facades, in several threads).

Prompt switching. Every statement releases the GIL while SQLite works and takes it back
afterwards. In a host process whose other threads keep the interpreter busy, taking it
back waits for the interpreter's switch interval (5 ms by default) or longer, once per
statement, and all that time the write lock is held and the host's own writers wait
(measured in the soak: transactions of ten statements holding the lock 25-70 ms with
four busy threads). So the switch interval is at most `PROMPT_SWITCH_SECONDS`; the
host's value comes back afterwards, unless the host changed it meanwhile (then its new
value stays).

No automatic garbage collection. A full (generation 2) collection walks every container
object of the process while it holds the GIL: in a process with a large heap it takes
tens of milliseconds (measured in the scale benchmark's process during a 1M backfill:
42-118 ms). One that starts while our transaction is open, in our thread between two
statements or in any other thread while ours waits for the GIL, keeps the lock held that
long, and the transaction's time limit cannot end it: SQLite is not running to be
interrupted, and the watchdog needs the GIL too (it fired 71 and 78 ms late in such a
run). The collection that was due runs at the next allocation after, with the lock
released; our transactions are short (a batch's is limited to 15 ms), so the garbage
they leave waits that long. If collection was off already (the host's choice), it stays
off; a host that switches it off while one of ours is open finds it on again afterwards
(the two cannot be told apart); an explicit `gc.collect()` still runs at once.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from collections.abc import Iterator

PROMPT_SWITCH_SECONDS = 0.0005

_lock = threading.Lock()
_open = 0
_saved_interval: float | None = None  # the host's, while ours is in force
_collection_switched_off = False  # by us


def _take() -> None:
    global _saved_interval, _collection_switched_off
    current = sys.getswitchinterval()
    if current > PROMPT_SWITCH_SECONDS:
        _saved_interval = current
        sys.setswitchinterval(PROMPT_SWITCH_SECONDS)
    if gc.isenabled():
        gc.disable()
        _collection_switched_off = True


def _give_back() -> None:
    global _saved_interval, _collection_switched_off
    if _saved_interval is not None:
        if sys.getswitchinterval() == PROMPT_SWITCH_SECONDS:  # nobody changed it
            sys.setswitchinterval(_saved_interval)
        _saved_interval = None
    if _collection_switched_off:
        _collection_switched_off = False
        gc.enable()


@contextlib.contextmanager
def holding_write_lock() -> Iterator[None]:
    """Around one write transaction of ours (nested and concurrent ones count)."""
    global _open
    with _lock:
        if _open == 0:
            _take()
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0:
                _give_back()
