"""The list_chats benchmark stays runnable: a tiny run prints its table and writes its
result file. Times are printed by the benchmark itself, never asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_small_list_chats_benchmark_run_writes_its_results(tmp_path: Path) -> None:
    command = ["-m", "tests.benchmarks.bench_list_chats", "--chats", "30", "--messages", "3"]
    ran = subprocess.run(
        [sys.executable, *command],
        cwd=tmp_path,  # its bench-results/ goes here, not over a real run's
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert "list_chats one week, 20" in ran.stdout
    written = json.loads((tmp_path / "bench-results" / "list-chats.json").read_text())
    assert written["chats"] == 30
