"""The warming policy (`domain/warming.py`): which apps first, within what memory, and
how many vectors a step reads."""

from __future__ import annotations

from chat_recall.domain.model import AppId
from chat_recall.domain.warming import AppVectors, VectorMemory, WarmingSteps, warming_order


def app(app_id: int, rows: int, newest: int, *, held: bool = False) -> AppVectors:
    return AppVectors(AppId(app_id), rows, rows * 10, newest, held)


def test_the_most_recently_written_app_comes_first_then_the_larger() -> None:
    memory = VectorMemory((app(1, 50, 100), app(2, 10, 300), app(3, 90, 200), app(4, 80, 200)))
    assert warming_order(memory) == (AppId(2), AppId(3), AppId(4), AppId(1))


def test_the_app_the_host_names_comes_first() -> None:
    memory = VectorMemory((app(1, 50, 100), app(2, 10, 300), app(3, 90, 200)))
    assert warming_order(memory, AppId(1)) == (AppId(1), AppId(2), AppId(3))
    assert warming_order(memory, AppId(9)) == (AppId(2), AppId(3), AppId(1))
    held = VectorMemory((app(1, 50, 100, held=True), app(2, 10, 300)))
    assert warming_order(held, AppId(1)) == (AppId(2),)


def test_only_what_fits_beside_what_is_held_each_app_whole() -> None:
    apps = (app(1, 50, 300), app(2, 30, 200), app(3, 10, 100))
    # 1000 bytes of budget, 300 held: app 1 (500) fits, app 2 (300) would not, app 3 does.
    memory = VectorMemory(apps, held_bytes=300, budget_bytes=1000)
    assert warming_order(memory) == (AppId(1), AppId(3))
    assert warming_order(VectorMemory(apps, held_bytes=1000, budget_bytes=1000)) == ()


def test_apps_held_already_or_without_vectors_are_skipped() -> None:
    memory = VectorMemory((app(1, 50, 300, held=True), app(2, 0, 400), app(3, 5, 100)))
    assert warming_order(memory) == (AppId(3),)


def test_a_step_is_sized_to_the_slice_within_bounds() -> None:
    steps = WarmingSteps(first_rows=64, min_rows=32, max_rows=1000)
    assert steps.next_rows(64, 0.002, 0.001) == 32  # twice the slice: half, at least 32
    assert steps.next_rows(64, 0.0005, 0.001) == 128  # half the slice: twice as many
    assert steps.next_rows(100, 0.0001, 0.001) == 200  # never more than twice at once
    assert steps.next_rows(800, 0.0001, 0.001) == 1000
    assert steps.next_rows(64, 0.0, 0.001) == 128  # too quick to measure
    assert steps.next_rows(64, 1.0, 0.001) == 32
