"""Output budgets: what a tool drops, and in which order, until its result fits.

Pure policies over sequences; the caller supplies `fits`, which measures a candidate
result (e.g. the size of its JSON) against the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def trim_groups(
    groups: Sequence[Sequence[T]], fits: Callable[[list[list[T]]], bool]
) -> tuple[list[list[T]], bool]:
    """Ranked groups of items (chats and their matches), best first: drop from the end
    (the last group's later items first, then the group) until `fits`. Returns the
    kept groups and whether anything was dropped."""
    kept = [list(group) for group in groups]
    truncated = False
    while kept and not fits(kept):
        if len(kept[-1]) > 1:
            kept[-1] = kept[-1][:1]
        else:
            kept.pop()
        truncated = True
    return kept, truncated


def trim_around(
    items: Sequence[T], target: int, fits: Callable[[list[T]], bool]
) -> tuple[int, int, bool]:
    """A window of `items` around `items[target]`: drop the item farthest from the
    target (the earlier one on a tie) until `fits`; the target always stays. Returns
    the kept slice's bounds `[start, end)` and whether anything was dropped."""
    start, end = 0, len(items)
    truncated = False
    while end - start > 1 and not fits(list(items[start:end])):
        if target - start >= end - 1 - target:
            start += 1
        else:
            end -= 1
        truncated = True
    return start, end, truncated


def trim_tail(items: Sequence[T], fits: Callable[[list[T]], bool]) -> tuple[int, bool]:
    """A chronological page: drop items from the end until `fits`, keeping at least
    one. Returns how many are kept and whether anything was dropped."""
    end = len(items)
    while end > 1 and not fits(list(items[:end])):
        end -= 1
    return end, end < len(items)
