"""The PostgreSQL suites never skip silently in CI (`.ci/run` sets CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import server_missing
from tests.postgres_server import ServerUnavailable


def test_in_ci_a_missing_server_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="cannot be skipped in CI"):
        server_missing(ServerUnavailable("no initdb"))


def test_elsewhere_a_missing_server_skips_the_postgresql_suites(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no initdb"):
        server_missing(ServerUnavailable("no initdb"))


def test_the_ci_script_runs_the_tests_with_ci_set() -> None:
    script = (Path(__file__).parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    assert "CI=1 python -m pytest" in script
