"""The browser test never skips silently in CI (`.ci/run` sets CI and installs Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.browser import BrowserUnavailable
from tests.web.conftest import browser_missing


def test_in_ci_a_missing_browser_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="cannot be skipped in CI"):
        browser_missing(BrowserUnavailable("no Chromium found"))


def test_elsewhere_a_missing_browser_skips_the_browser_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium found"):
        browser_missing(BrowserUnavailable("no Chromium found"))


def test_the_ci_script_installs_chromium_and_the_web_extra() -> None:
    script = (Path(__file__).parents[2] / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt-get install -y -qq --no-install-recommends chromium" in script
    assert "-e '.[test,mcp,web]'" in script
    assert "playwright install" not in script  # never a browser download
