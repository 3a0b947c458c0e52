"""`Deferred`: built once, on first use, even when threads ask at the same time."""

from __future__ import annotations

import threading

from chat_recall.application.deferred import Deferred


def test_a_deferred_service_is_built_once_on_first_use() -> None:
    built: list[object] = []

    def build() -> object:
        built.append(object())
        return built[-1]

    deferred = Deferred(build)
    assert not deferred.built
    assert built == []
    first = deferred.get()
    assert deferred.built
    assert deferred.get() is first
    assert len(built) == 1


def test_threads_asking_together_get_the_same_instance() -> None:
    gate = threading.Barrier(8)
    calls: list[int] = []

    def build() -> list[int]:
        calls.append(1)
        return calls

    deferred = Deferred(build)
    seen: list[object] = []

    def ask() -> None:
        gate.wait()
        seen.append(deferred.get())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert all(value is calls for value in seen)


def test_services_sharing_a_lock_build_their_shared_dependency_once() -> None:
    made: list[object] = []

    def dependency() -> object:  # like a container's singleton: no lock of its own
        if not made:
            made.append(object())
        return made[0]

    building = threading.RLock()
    first = Deferred(lambda: ("indexer", dependency()), lock=building)
    second = Deferred(lambda: ("unit of work", dependency()), lock=building)
    gate = threading.Barrier(16)
    seen: list[object] = []

    def ask(deferred: Deferred[tuple[str, object]]) -> None:
        gate.wait()
        seen.append(deferred.get()[1])

    threads = [threading.Thread(target=ask, args=(d,)) for d in (first, second) * 8]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert all(value is made[0] for value in seen)
