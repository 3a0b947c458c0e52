"""While chat-recall holds the database's write lock, its thread gets the GIL back
promptly after each statement.

Every statement releases the GIL while SQLite works and takes it back afterwards. In a
host process whose other threads keep the interpreter busy, taking it back waits for
the interpreter's switch interval (5 ms by default) or longer, once per statement, and
all that time the write lock is held and the host's own writers wait (measured in the
soak: transactions of ten statements holding the lock 25-70 ms with four busy threads).
So while any write transaction of ours is open, the switch interval is at most
`PROMPT_SWITCH_SECONDS`; the host's value comes back when the last one ends, unless the
host changed it meanwhile (then its new value stays).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

PROMPT_SWITCH_SECONDS = 0.0005

_lock = threading.Lock()
_open = 0
_saved: float | None = None


@contextlib.contextmanager
def prompt_switching() -> Iterator[None]:
    global _open, _saved
    with _lock:
        if _open == 0:
            current = sys.getswitchinterval()
            if current > PROMPT_SWITCH_SECONDS:
                _saved = current
                sys.setswitchinterval(PROMPT_SWITCH_SECONDS)
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0 and _saved is not None:
                if sys.getswitchinterval() == PROMPT_SWITCH_SECONDS:  # nobody changed it
                    sys.setswitchinterval(_saved)
                _saved = None
