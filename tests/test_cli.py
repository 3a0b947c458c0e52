from __future__ import annotations

import pytest

from adapters.cli.main import main


def test_demo_prints_cleaned_history_without_payloads(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    output = capsys.readouterr().out
    assert "[write src/auth/session.ts: add session store]" in output
    assert "export const line17" not in output
    assert "The user wants something simple" not in output
