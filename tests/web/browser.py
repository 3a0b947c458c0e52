"""Headless Chromium for the page's browser test and the README's screenshot: the
system's Chromium (Debian's `chromium` package), driven by Playwright. Playwright's own
browser downloads are never used (`playwright install` is never run): the browser is
the one the machine has, started with the flags that keep it off the network."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM_VARIABLE = "CHAT_RECALL_CHROMIUM"
# As root (CI) Chromium needs --no-sandbox; the rest keep it from reaching the network
# (this machine has none) and from doing first-run work.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class BrowserUnavailable(Exception):
    """No Chromium, or no Playwright, on this machine."""


def chromium_path() -> str:
    """$CHAT_RECALL_CHROMIUM, else `chromium` on the PATH."""
    configured = os.environ.get(CHROMIUM_VARIABLE)
    found = configured or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found or not Path(found).is_file():
        raise BrowserUnavailable(
            "no Chromium found: install Debian's chromium (apt-get install chromium) or "
            f"set {CHROMIUM_VARIABLE}"
        )
    return found


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A Playwright `Browser` on the system's Chromium, with a fresh profile."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        raise BrowserUnavailable(
            f"Playwright is not installed ({error}): pip install -e '.[test,mcp,web]'"
        ) from error
    path = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            browser.close()
