"""Warming the shared vector matrices (`adapters/vector_matrix.py`): one copy per app
however warming and searches interleave, never a partial matrix searched, and never a
matrix a search used pushed out to make room for one warmed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import attrs

from chat_recall.adapters.vector_matrix import VectorMatrices
from chat_recall.domain.model import AppId, ChatId, MessageId
from chat_recall.domain.semantic import Similar, pack_vector

DIMENSION = 8
KEY = 1
Row = tuple[int, int, int, bytes]


def vector(n: int) -> bytes:
    values = [float((n * (i + 3)) % 7 - 3) for i in range(DIMENSION)]
    norm = sum(v * v for v in values) ** 0.5 or 1.0
    return pack_vector([v / norm for v in values])


@attrs.define
class Rows:
    """`VectorRows` over lists; `before_read` runs once, at the next read."""

    by_app: dict[int, list[Row]]
    before_read: Callable[[], object] | None = None
    reads: int = 0

    def rows_after(self, app_id: AppId, model_key: int, after_seq: int, limit: int) -> list[Row]:
        hook, self.before_read = self.before_read, None
        if hook is not None:
            hook()
        self.reads += 1
        return [r for r in self.by_app.get(app_id, []) if r[0] > after_seq][:limit]

    def live(
        self, app_id: AppId, model_key: int, seqs: Sequence[int]
    ) -> dict[int, tuple[MessageId, ChatId]]:
        wanted = set(seqs)
        return {
            r[0]: (MessageId(r[1]), ChatId(r[2]))
            for r in self.by_app.get(app_id, [])
            if r[0] in wanted
        }

    def count(self, app_id: AppId, model_key: int) -> int:
        return len(self.by_app.get(app_id, []))

    def apps(self, model_key: int) -> list[tuple[int, int, int, int]]:
        return [(a, len(r), r[-1][0], DIMENSION * 4) for a, r in sorted(self.by_app.items()) if r]


def fixture(apps: int = 3, per_app: int = 40) -> Rows:
    by_app: dict[int, list[Row]] = {}
    seq = 0
    for app in range(1, apps + 1):
        for n in range(per_app):
            seq += 1
            by_app.setdefault(app, []).append((seq, 1000 * app + n, 100 * app + n % 5, vector(seq)))
    return Rows(by_app)


def nearest(matrices: VectorMatrices, rows: Rows, app: int) -> list[Similar]:
    return matrices.nearest(
        rows, AppId(app), KEY, vector(3), 50, exclude_chat_id=None, floor=-1.0, centered=True
    )


def held_rows(matrices: VectorMatrices) -> dict[int, int]:
    return {app: m.size for (app, _), m in matrices._matrices.items()}


def test_a_search_after_part_of_the_warming_reads_the_rest_once() -> None:
    rows = fixture()
    matrices = VectorMatrices()
    assert matrices.warm(rows, AppId(1), KEY, 15) == 15
    assert held_rows(matrices) == {1: 15}
    found = nearest(matrices, rows, 1)
    assert held_rows(matrices) == {1: 40}
    assert found == nearest(VectorMatrices(), rows, 1)  # as a cold search finds
    assert matrices.warm(rows, AppId(1), KEY, 15) == 0  # nothing left to warm


def test_warming_and_searches_in_two_threads_hold_each_row_once() -> None:
    rows = fixture(apps=2, per_app=400)
    expected = {app: nearest(VectorMatrices(), rows, app) for app in (1, 2)}
    for _ in range(5):
        matrices = VectorMatrices()
        failures: list[BaseException] = []

        def warm_all(
            matrices: VectorMatrices = matrices, failures: list[BaseException] = failures
        ) -> None:
            try:
                for app in (2, 1):
                    while matrices.warm(rows, AppId(app), KEY, 7):
                        pass
            except BaseException as error:  # pragma: no cover - reported below
                failures.append(error)

        warmer = threading.Thread(target=warm_all)
        warmer.start()
        for app in (1, 2, 1):
            assert nearest(matrices, rows, app) == expected[app]
        warmer.join(30)
        assert not warmer.is_alive()
        assert failures == []
        assert held_rows(matrices) == {1: 400, 2: 400}
        for app in (1, 2):
            matrix = matrices._matrices[(AppId(app), KEY)]
            assert matrix.seqs[: matrix.size].tolist() == [r[0] for r in rows.by_app[app]]


def test_a_search_that_made_the_matrix_ends_the_warming_of_that_app() -> None:
    rows = fixture()
    matrices = VectorMatrices()
    nearest(matrices, rows, 2)
    assert matrices.warm(rows, AppId(2), KEY, 10) == 0
    assert held_rows(matrices) == {2: 40}


def test_warming_never_pushes_out_what_a_search_used() -> None:
    rows = fixture()
    probe = VectorMatrices()
    nearest(probe, rows, 1)
    one_app = probe.held_bytes()
    matrices = VectorMatrices(budget_bytes=one_app + one_app // 2)
    nearest(matrices, rows, 1)
    assert matrices.warm(rows, AppId(2), KEY, 10) == 0  # would not fit beside app 1
    assert held_rows(matrices) == {1: 40}
    plan = matrices.memory(rows, KEY)
    assert [(a.app_id, a.held) for a in plan.apps] == [(1, True), (2, False), (3, False)]
    assert plan.held_bytes == one_app


def test_a_search_pushes_out_warmed_matrices_before_searched_ones() -> None:
    rows = fixture()
    probe = VectorMatrices()
    nearest(probe, rows, 1)
    one_app = probe.held_bytes()
    matrices = VectorMatrices(budget_bytes=2 * one_app + one_app // 2)
    nearest(matrices, rows, 1)
    while matrices.warm(rows, AppId(2), KEY, 16):
        pass
    assert held_rows(matrices) == {1: 40, 2: 40}
    nearest(matrices, rows, 3)  # over budget: the warmed, never searched, goes first
    assert held_rows(matrices) == {1: 40, 3: 40}


def test_a_model_change_leaves_only_the_new_models_matrix() -> None:
    rows = fixture()
    matrices = VectorMatrices()
    assert matrices.warm(rows, AppId(1), KEY, 10) == 10
    assert matrices.warm(rows, AppId(1), KEY + 1, 10) == 10  # the store's key moved on
    assert list(matrices._matrices) == [(AppId(1), KEY + 1)]
    matrices.clear()  # what `use_vector_model` does in this process
    assert held_rows(matrices) == {}


def test_a_matrix_is_made_for_the_rows_counted_not_doubled() -> None:
    rows = fixture(apps=1, per_app=3000)
    matrices = VectorMatrices()
    nearest(matrices, rows, 1)
    matrix = matrices._matrices[(AppId(1), KEY)]
    assert 3000 <= len(matrix.seqs) < 3000 * 1.1
