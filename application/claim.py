"""One indexer at a time: an indexer's claim to the dirty queue (domain `IndexerLease`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from chat_recall.domain.indexing import IndexerLease

if TYPE_CHECKING:
    import logging

    from chat_recall.domain.ports import Claimants, DirtyQueue


def _log() -> logging.Logger:
    import logging

    return logging.getLogger("chat_recall.indexer")


@attrs.define
class IndexerClaim:
    """Takes and renews the claim before an indexer's batches; a claim left by an
    indexer known to be gone (its process ended, or dropped without `stop()` in this
    one) is overruled at once, any other waited for."""

    dirty: DirtyQueue
    claimants: Claimants
    owner: object
    lease: IndexerLease = IndexerLease()
    holder: str = attrs.field(init=False, default="")
    _claimed_at: float | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.holder = self.claimants.name(self.owner)

    def take(self, now: float) -> str | None:
        """Take or renew the claim when due: None when this indexer has it, else who
        holds it, as a person reads it."""
        if not self.lease.due(self._claimed_at, now):
            return None
        other = self.dirty.claim(self.holder, self.lease.seconds)
        if other is not None and self.claimants.gone(other):
            other = self.dirty.claim(self.holder, self.lease.seconds, overrule=other)
        if other is not None:
            self._claimed_at = None
            return self.claimants.describe(other)
        self._claimed_at = now
        return None

    def release(self) -> None:
        """End the claim, so another indexer need not wait for it to run out. Never
        raises (a read-only or lost storage lets it run out)."""
        if self._claimed_at is None:
            return
        self._claimed_at = None
        try:
            self.dirty.release(self.holder)
        except Exception:
            _log().warning("indexer: could not end its claim (it runs out)", exc_info=True)
