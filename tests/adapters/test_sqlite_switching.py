"""While a write transaction of ours is open, the interpreter switches threads promptly,
and the host's switch interval comes back afterwards."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.sqlite.interpreter import PROMPT_SWITCH_SECONDS, holding_write_lock

HOST_INTERVAL = 0.004


@pytest.fixture
def host_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(HOST_INTERVAL)
    yield
    sys.setswitchinterval(before)


@pytest.mark.usefixtures("host_interval")
def test_the_interval_is_prompt_inside_and_the_hosts_afterwards() -> None:
    with holding_write_lock():
        assert sys.getswitchinterval() == pytest.approx(PROMPT_SWITCH_SECONDS)
        with holding_write_lock():  # nested (two facades, two threads)
            assert sys.getswitchinterval() == pytest.approx(PROMPT_SWITCH_SECONDS)
        assert sys.getswitchinterval() == pytest.approx(PROMPT_SWITCH_SECONDS)
    assert sys.getswitchinterval() == pytest.approx(HOST_INTERVAL)


@pytest.mark.usefixtures("host_interval")
def test_a_host_that_changes_the_interval_meanwhile_keeps_its_value() -> None:
    with holding_write_lock():
        sys.setswitchinterval(0.002)
    assert sys.getswitchinterval() == pytest.approx(0.002)


def test_a_host_interval_already_shorter_is_left_alone() -> None:
    before = sys.getswitchinterval()
    sys.setswitchinterval(PROMPT_SWITCH_SECONDS / 2)
    try:
        with holding_write_lock():
            assert sys.getswitchinterval() == pytest.approx(PROMPT_SWITCH_SECONDS / 2)
        assert sys.getswitchinterval() == pytest.approx(PROMPT_SWITCH_SECONDS / 2)
    finally:
        sys.setswitchinterval(before)


@pytest.mark.usefixtures("host_interval")
def test_every_write_transaction_switches_promptly_and_an_error_restores(tmp_path: Path) -> None:
    recall = bootstrap.sqlite(tmp_path / "host.db", create_host_schema=True)
    database = recall.indexer.unit_of_work.database  # type: ignore[attr-defined]
    seen: list[float] = []
    with database.writing():
        seen.append(sys.getswitchinterval())

    def failing_batch() -> None:
        with database.writing():
            seen.append(sys.getswitchinterval())
            raise RuntimeError("a failed batch")

    with pytest.raises(RuntimeError):
        failing_batch()
    assert seen == [pytest.approx(PROMPT_SWITCH_SECONDS)] * 2
    assert sys.getswitchinterval() == pytest.approx(HOST_INTERVAL)
    recall.close()


@pytest.mark.usefixtures("host_interval")
def test_transactions_in_two_threads_restore_the_interval_and_collection_once_both_end() -> None:
    """Both settings `holding_write_lock` holds (test_sqlite_collection.py for the rest
    of garbage collection's)."""
    inside, release = threading.Barrier(2), threading.Event()

    def transaction() -> None:
        with holding_write_lock():
            inside.wait()
            release.wait()

    thread = threading.Thread(target=transaction)
    thread.start()
    with holding_write_lock():
        inside.wait()
    # the other transaction is still open
    assert sys.getswitchinterval() == pytest.approx(PROMPT_SWITCH_SECONDS)
    assert not gc.isenabled()
    release.set()
    thread.join()
    assert sys.getswitchinterval() == pytest.approx(HOST_INTERVAL)
    assert gc.isenabled()
