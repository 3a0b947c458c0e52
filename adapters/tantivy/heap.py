"""Giving the memory tantivy's writers freed back to the operating system.

Each app's writer indexes on a thread of its own, and glibc gives every such thread an
allocation arena of its own that keeps what the thread frees for later reuse, so after
a backfill the process held several times the memory still live, and it grew with every
app written. `malloc_trim(0)` after a publish returns the free pages of every arena
(glibc 2.8 and later), so the process keeps about what is live. Where the C library has no
`malloc_trim` (musl, macOS) there is nothing to do.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


def release_free_memory() -> None:
    """Return the C heap's free pages to the operating system, where the C library can
    (ctypes releases the GIL for the call: other threads keep running)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
