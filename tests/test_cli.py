from __future__ import annotations

import pytest

from adapters.cli.main import main


def test_demo_indexes_searches_and_reads_a_sample_history(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    output = capsys.readouterr().out
    assert "search in app 1 for 'sessions JWT': 3 matching messages" in output
    assert "reading around message 1 of chat 1" in output
    assert "[write src/auth/session.ts: add session store (200 lines omitted)]" in output
    assert "export const line17" not in output  # payload bodies never come back
    assert "The user wants something simple" not in output  # nor reasoning
    assert "Another app" not in output  # nor another app's chats


def test_demo_with_a_query_that_matches_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--query", "zzzunmatched"]) == 0
    assert "0 matching messages" in capsys.readouterr().out
