"""The output-budget policies, on plain lists (the tools measure JSON bytes instead)."""

from __future__ import annotations

from chat_recall.domain.budget import trim_around, trim_groups, trim_tail


def total(groups: list[list[int]]) -> int:
    return sum(sum(group) for group in groups)


def test_groups_lose_their_later_items_before_whole_groups() -> None:
    groups = [[5, 4], [3, 2], [1, 1]]
    assert trim_groups(groups, lambda g: total(g) <= 100) == (groups, False)
    assert trim_groups(groups, lambda g: total(g) <= 14) == ([[5, 4], [3, 2]], True)
    assert trim_groups(groups, lambda g: total(g) <= 12) == ([[5, 4], [3]], True)
    assert trim_groups(groups, lambda g: total(g) <= 9) == ([[5, 4]], True)
    assert trim_groups(groups, lambda g: total(g) <= 5) == ([[5]], True)
    assert trim_groups(groups, lambda g: total(g) <= 0) == ([], True)


def test_around_drops_the_farthest_item_and_keeps_the_target() -> None:
    items = list(range(7))  # target 4: farther on the left
    assert trim_around(items, 4, lambda kept: len(kept) <= 7) == (0, 7, False)
    assert trim_around(items, 4, lambda kept: len(kept) <= 5) == (2, 7, True)
    assert trim_around(items, 4, lambda kept: len(kept) <= 4) == (3, 7, True)  # a tie: left
    assert trim_around(items, 4, lambda kept: len(kept) <= 2) == (4, 6, True)
    assert trim_around(items, 4, lambda kept: False) == (4, 5, True)  # the target stays
    assert trim_around(items, 0, lambda kept: len(kept) <= 3) == (0, 3, True)


def test_a_page_loses_items_from_its_end_but_keeps_one() -> None:
    items = [1, 2, 3, 4]
    assert trim_tail(items, lambda kept: sum(kept) <= 10) == (4, False)
    assert trim_tail(items, lambda kept: sum(kept) <= 6) == (3, True)
    assert trim_tail(items, lambda kept: False) == (1, True)
    assert trim_tail([], lambda kept: False) == (0, False)
