"""Fixtures of the page's tests: the demo-like history, the page over it (Starlette's
TestClient, at the address the server would serve), the real `chat-recall serve`
command, and headless Chromium (which fails the run in CI when it is missing, like the
PostgreSQL server: a browser test skipped in CI is a failure)."""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest
from starlette.testclient import TestClient

import chat_recall
from chat_recall.adapters.sqlite_host.admin import registered_apps
from chat_recall.adapters.web.app import Site, build
from chat_recall.adapters.web.guard import served_hosts
from chat_recall.application.service import ChatRecall
from tests.web import history as history_module
from tests.web.browser import BrowserUnavailable, chromium

HOST, PORT = "127.0.0.1", 8765
BASE_URL = f"http://{HOST}:{PORT}"
# How long a started `chat-recall serve` may take to print its address.
START_SECONDS = 60.0


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> history_module.History:
    return history_module.build(tmp_path_factory.mktemp("web") / "history.db")


@pytest.fixture(scope="module")
def recall(history: history_module.History) -> Iterator[ChatRecall]:
    with chat_recall.sqlite(history.path, install=False) as opened:
        yield opened


def page_client(recall: ChatRecall, app: int | None = None) -> TestClient:
    site = Site(recall, lambda: registered_apps(recall), None if app is None else app)
    return TestClient(build(site, served_hosts(HOST, PORT)), base_url=BASE_URL)


@pytest.fixture
def client(recall: ChatRecall) -> Iterator[TestClient]:
    with page_client(recall) as opened:
        yield opened


def browser_missing(missing: BrowserUnavailable) -> NoReturn:
    """In CI (`CI` set, as `.ci/run` does) a missing browser fails the run; elsewhere
    (a laptop without Chromium) the browser test is skipped."""
    if os.environ.get("CI"):
        pytest.fail(f"the browser test cannot be skipped in CI: {missing}")
    pytest.skip(str(missing))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        with chromium() as started:
            yield started
    except BrowserUnavailable as missing:
        browser_missing(missing)


@contextlib.contextmanager
def served(*arguments: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`chat-recall ARGUMENTS --port 0` in a process of its own: its page's address
    (read from the line it prints) and the process; stopped with Ctrl-C (SIGINT)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "chat_recall", *arguments, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        yield _address(process), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()
        process.stderr.close()


def _address(process: subprocess.Popen[bytes]) -> str:
    """The address in the first lines the process prints (read from the pipe's file
    descriptor, so no line waits in a reader's buffer while `select` waits)."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    deadline = time.monotonic() + START_SECONDS
    printed = b""
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0 and selector.select(timeout=left):
            chunk = os.read(descriptor, 4096)
            if not chunk:
                break
            printed += chunk
            found = re.search(rb"(http://\S+/) ", printed)
            if found:
                return found.group(1).decode()
    process.kill()
    assert process.stderr is not None
    pytest.fail(f"the page did not start: {printed!r} {process.stderr.read()!r}")


def free_of_secrets(html: str) -> None:
    for secret in history_module.SECRETS:
        assert secret not in html
