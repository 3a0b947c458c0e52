"""Which stored schema versions a release may use, the same for every adapter: its own
only. An older (pre-release) version, a newer release's version and a value that is no
version are refused with the fix named."""

from __future__ import annotations

import pytest

from chat_recall.domain.errors import IndexUnavailable
from chat_recall.domain.schema_version import (
    NOT_INSTALLED,
    installed_version,
    not_installed,
    reported_version,
    usable_version,
    version_problem,
)


@pytest.mark.parametrize("stored", ["3", 3, "03"])
def test_the_releases_own_version_is_usable(stored: object) -> None:
    assert version_problem(stored, 3) is None
    assert usable_version(stored, 3) == int(str(stored))


def test_nothing_stored_is_not_installed_not_a_problem() -> None:
    assert version_problem(None, 3) is None
    assert usable_version(None, 3) == 0
    assert reported_version(None) is None
    assert not_installed().fix == "install"
    assert "run install" in NOT_INSTALLED


@pytest.mark.parametrize(
    ("stored", "fix"),
    [
        ("0", "rebuild"),
        ("1", "rebuild"),  # a pre-release version: no upgrade, a rebuild
        ("2", "rebuild"),
        ("4", "upgrade"),
        ("99", "upgrade"),
        ("9" * 5000, "upgrade"),  # more digits than int() reads: still just newer
        ("abc", "rebuild"),
        ("-1", "rebuild"),
        ("2.0", "rebuild"),
        ("", "rebuild"),
        (" 1", "rebuild"),
        ("²", "rebuild"),  # a digit to str.isdigit, not to int()
        (b"\x01", "rebuild"),
    ],
)
def test_an_older_newer_or_non_numeric_version_is_refused_with_its_fix(
    stored: object, fix: str
) -> None:
    problem = version_problem(stored, 3)
    assert problem is not None
    assert (problem.check, problem.fix, problem.ok) == ("schema_version", fix, False)
    assert problem.problem is not None
    assert len(problem.subject) <= len("version ") + 40
    assert "chat-recall rebuild" in problem.problem
    if fix == "upgrade":
        assert "upgrade chat-recall" in problem.problem
    if stored in ("0", "1", "2"):
        assert "pre-release chat-recall" in problem.problem
        assert "host tables are untouched" in problem.problem
    with pytest.raises(IndexUnavailable) as raised:
        usable_version(stored, 3)
    assert str(raised.value) == problem.problem


def test_status_reports_a_number_or_the_stored_text_cut_short() -> None:
    assert reported_version("3") == 3
    assert reported_version("abc") == "abc"
    assert reported_version("9" * 5000) == "9" * 40


def test_the_installed_version_is_sound() -> None:
    assert installed_version(3).ok
