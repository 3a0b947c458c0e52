"""The pacing rule: how chat-recall's write transactions share SQLite's one write lock
with the host, and how its Python work shares the host process's interpreter.

The lock. SQLite lets one writer at a time. A host write that meets one of our
transactions waits in its busy handler, which tries again after sleeping 1, 2, 5, 10,
15, 20, 25 ms... (`BUSY_HANDLER_SLEEPS`, SQLite's own schedule). What the host waits is
therefore set by two things we control, and the rule bounds both:

- How long a transaction holds the lock. Every transaction that can be cut is sized to
  aim at `budget` and abandoned at `limit_seconds` (rolled back and done in halves):
  the transaction is bounded by construction, not by forecast.
- Whether the lock is free when the waiting writer tries again. After a transaction
  that held the lock `held` seconds we rest at least `retry_gap(held)` (plus a margin
  for the writer's wake-up) before taking it again: a writer that began waiting during
  that transaction has waited at most `held`, so its next try falls inside the rest and
  finds the lock free. Shorter rests do worse than they seem: a writer that misses a try
  sleeps longer before the next (5, 10, 25, then 50 and 100 ms), and while we hold the
  lock more than half the time it can miss several in a row.

While the host writes (it committed within `writing_seconds`, or in our first
`first_look_seconds`, before we can tell), transactions aim at `writing_budget_seconds`
and the rest is never shorter than the transaction: a host write waits at most the busy
handler's first try past our transaction (a 3 ms transaction: 3 ms), at most half of
the host's writes meet one, and the index still holds the lock a third of the time or
more (`writing_share_floor`), so it always progresses. While the host is quiet nobody
waits: transactions aim at `quiet_budget_seconds` with `quiet_rest_seconds` between them,
as fast as a backfill goes; the first write of a host that was quiet may wait longer, and
switches the indexer to the writing pace.

The interpreter. When the indexer runs in the host's own process, its Python work (reading
rows, projecting and redacting them) holds the GIL; a host thread that wakes meanwhile
waits for it, up to the interpreter's switch interval (`sys.getswitchinterval()`). So
that work runs in slices of at most `cpu_slice_seconds`, each followed by a pause of
`cpu_pause_seconds` in which another thread takes the interpreter. The interpreter's own
settings are never touched.
"""

from __future__ import annotations

import attrs

# The sleeps of SQLite's default busy handler between a writer's tries (seconds); after
# the last, it sleeps that long again until its timeout.
BUSY_HANDLER_SLEEPS = (
    0.001,
    0.002,
    0.005,
    0.010,
    0.015,
    0.020,
    0.025,
    0.025,
    0.025,
    0.050,
    0.050,
    0.100,
)


def retry_gap(held: float) -> float:
    """The longest a writer that began waiting while the lock was held for `held`
    seconds sleeps, after the lock was let go, before its next try: its tries fall at
    the busy handler's cumulative sleeps, and the one that follows `held` comes at most
    one sleep after it."""
    waited = 0.0
    for sleep in BUSY_HANDLER_SLEEPS:
        waited += sleep
        if waited >= held:
            return sleep
    return BUSY_HANDLER_SLEEPS[-1]


@attrs.frozen
class PacingRule:
    """The one pacing rule (see the module notes). The defaults: a quiet host's
    backfill holds the lock in transactions of about 12 ms a couple of ms apart; a
    writing host's writes wait a few ms at most."""

    quiet_budget_seconds: float = 0.012
    quiet_rest_seconds: float = 0.002
    writing_budget_seconds: float = 0.003
    # Added to every rest while the host writes: the waiting writer must wake, and be
    # scheduled, within the rest.
    rest_margin_seconds: float = 0.001
    # A transaction still open at this is rolled back (the time limit); the writer that
    # waited for it is let in by the rest after it.
    limit_seconds: float = 0.015
    # How long after a host write the host counts as writing.
    writing_seconds: float = 5.0
    # Before anything is known (the first moments of a pacer), the host counts as writing.
    first_look_seconds: float = 0.5
    cpu_slice_seconds: float = 0.001
    cpu_pause_seconds: float = 0.00005

    def writing(self, since_host_wrote: float | None, since_start: float) -> bool:
        """Whether the host counts as writing: it wrote `since_host_wrote` seconds ago
        (None: never seen), and the pacer started `since_start` seconds ago."""
        if since_host_wrote is not None and since_host_wrote < self.writing_seconds:
            return True
        return since_start < self.first_look_seconds

    def budget(self, *, writing: bool) -> float:
        """How long the next transaction should aim to hold the lock."""
        return self.writing_budget_seconds if writing else self.quiet_budget_seconds

    def rest(self, held: float, *, writing: bool) -> float:
        """How long the lock stays free after one of our transactions held it `held`
        seconds, before we take it again."""
        let_in = retry_gap(held) + self.rest_margin_seconds
        if writing:
            return max(held, let_in)
        if held > self.limit_seconds:  # a writer that arrived meanwhile may be sleeping long
            return let_in
        return self.quiet_rest_seconds

    @property
    def writing_share_floor(self) -> float:
        """The least share of the time the indexer holds the lock while the host writes
        and the indexer has work, for transactions at the writing budget."""
        held = self.writing_budget_seconds
        return held / (held + self.rest(held, writing=True))
