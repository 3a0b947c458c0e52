"""The tantivy engine gives its writers' freed memory back after a publish."""

from __future__ import annotations

import platform

import pytest

from chat_recall.adapters.tantivy import heap


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_on_glibc_the_trim_is_found_and_runs() -> None:
    trim = heap._malloc_trim()
    assert trim is not None
    heap.release_free_memory()  # returns nothing; must not raise


def test_without_a_c_library_releasing_memory_does_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    heap._malloc_trim.cache_clear()
    monkeypatch.setattr(heap.ctypes.util, "find_library", lambda name: None)
    try:
        assert heap._malloc_trim() is None
        heap.release_free_memory()
    finally:
        heap._malloc_trim.cache_clear()
