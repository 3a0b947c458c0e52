"""Warming: which apps' vectors a store loads into memory before any search asks for
them, in what order, within what memory, and in what steps.

A store that searches vectors in memory (`adapters/vector_matrix.py`) reads an app's
vectors from its database at the app's first search, and in a large app that search
waits for the read. So a facade that starts reads them in the background first
(`application.semantic.Warming`), by this policy:

- The memory is the one budget the search keeps (`BUDGET_BYTES`, all apps together):
  warming takes only what fits beside what is held already, each app whole, and never
  pushes out a matrix a search has used (the search's eviction drops warmed matrices
  that no search has used first).
- An app the host names comes first (the one it serves, when it knows). Then the
  apps whose vectors were written last: the app the user works in is the likeliest to
  be asked about next. Among equals, the larger first (its first search would wait
  longest). Apps held already are skipped.
- The reading goes in steps, each sized so that its work in the host's process stays
  within the interpreter slice the pacing rule allows (`PacingRule.cpu_slice_seconds`):
  the step's time is measured and the next one sized to fit (`WarmingSteps`).

Warming only ever reads, and a search never waits for it beyond one step: a search
that comes first loads what is missing itself, as it does without warming.
"""

from __future__ import annotations

import attrs

from chat_recall.domain.model import AppId

# The memory the vectors held for search may take, all apps together; the app being
# searched is always held whatever its size (it is what the search needs).
BUDGET_BYTES = 512 * 1024 * 1024


@attrs.frozen
class AppVectors:
    """One app's vectors of the recorded model, as a store would hold them."""

    app_id: AppId
    rows: int
    bytes: int  # the memory they take once held
    newest: int  # the order the store wrote its newest vector in (higher: later)
    held: bool = False  # held in memory already


@attrs.frozen
class VectorMemory:
    """What a store holds in memory for search, and what it could hold."""

    apps: tuple[AppVectors, ...] = ()
    held_bytes: int = 0
    budget_bytes: int = BUDGET_BYTES


def fits(held_bytes: int, more_bytes: int, budget_bytes: int) -> bool:
    """Whether `more_bytes` may be warmed beside `held_bytes`."""
    return held_bytes + more_bytes <= budget_bytes


def warming_order(memory: VectorMemory, first: AppId | None = None) -> tuple[AppId, ...]:
    """The apps to warm, first first: the app named `first`, then the most recently
    written (then the larger), each only if it fits in what the budget leaves."""
    left = memory.budget_bytes - memory.held_bytes
    chosen: list[AppId] = []
    waiting = (app for app in memory.apps if not app.held and app.rows > 0)
    for app in sorted(waiting, key=lambda a: (a.app_id != first, -a.newest, -a.rows, a.app_id)):
        if app.bytes <= left:
            chosen.append(app.app_id)
            left -= app.bytes
    return tuple(chosen)


@attrs.frozen
class WarmingSteps:
    """How many vectors one warming step reads: the first step a guess, each next one
    sized from the last so that a step's work fits the interpreter slice."""

    first_rows: int = 64
    # A step's fixed work (its statements, the append's calls) takes part of a slice
    # whatever its rows: fewer rows than this would mostly pay for that.
    min_rows: int = 32
    max_rows: int = 4_096

    def next_rows(self, rows: int, seconds: float, slice_seconds: float) -> int:
        """The next step's rows after `rows` took `seconds`: as many as fit in
        `slice_seconds` at that rate, at most twice as many as before."""
        grown = 2 * max(rows, 1)
        fitted = grown if seconds <= 0 else int(rows * slice_seconds / seconds)
        return max(self.min_rows, min(self.max_rows, grown, fitted))
