"""What a person meets first on the command line (issue 37): file errors that name
their path, hints that are commands one can paste, plain words in status, readable
errors on a terminal, plurals, and a subcommand's own usage for a bad flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_recall.adapters.cli.exits import Exit
from chat_recall.adapters.cli.main import main

Capture = pytest.CaptureFixture[str]


def test_init_names_the_path_it_cannot_create(tmp_path: Path, capsys: Capture) -> None:
    target = tmp_path / "no" / "such" / "dir" / "x.db"
    assert main(["init", "--db", str(target)]) == Exit.FAILED
    error = capsys.readouterr().err
    assert str(target) in error
    assert f"the directory {target.parent} does not exist" in error
    assert list(tmp_path.iterdir()) == []
