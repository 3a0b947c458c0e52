"""Start-up time of the `chat-recall` command, as agents and scripts pay it on every call.

Builds a small database (one app, a few chats) with the CLI itself, then runs each
command many times as a fresh process and prints the median and p90 wall time, next to
a bare `python -c pass` measured in the same run (the interpreter's own floor). The
machine is shared and noisy: the CPU time of each child process (user + system, from
`getrusage`) is reported too, as load on other cores barely moves it, and ratios to
the floor compare between runs. Uses `hyperfine` for wall time when it is installed,
else a timing loop. Asserts nothing; the targets (issue 13) are at most 100 ms for
`--help` and 150 ms for `search` on a small database.

    python -m tests.benchmarks.bench_startup [--runs 40] [--json bench-results/startup.json]
    python -m tests.benchmarks.bench_startup --baseline /path/to/older/checkout

With `--baseline`, every command is also run from that checkout's code (its `.dev`
folder first on PYTHONPATH, same interpreter and packages), alternating run by run with
the current code, so a before/after comparison sees the same load. With
`--instructions` (needs valgrind), each command also runs once under callgrind and its
count of executed instructions is printed: a figure the machine's load does not move at
all, to compare versions and to convert (with `QUIET_MS_PER_M_INSTRUCTIONS`, timed when
the machine was quiet) into the time the command takes on a quiet machine ("quiet ms").
Children run with bytecode caching on, as an installed package does. With
`--baseline`, both versions run as `python -m chat_recall`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HISTORY = [
    {"type": "chat", "id": 1, "app_id": 1, "title": "Auth", "created_at": 1_700_000_000},
    {"type": "chat", "id": 2, "app_id": 1, "title": "Billing", "created_at": 1_700_000_100},
    *(
        {
            "type": "message",
            "id": 10 + i,
            "chat_id": 1 + i % 2,
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"message {i}: sessions in Postgres, JWT refresh, invoices and taxes",
            "created_at": 1_700_000_200 + i,
        }
        for i in range(40)
    ),
]


# Children run with bytecode caching on, as an installed package runs (pip compiles its
# modules): a PYTHONDONTWRITEBYTECODE inherited from a development shell would make every
# run compile chat-recall's modules from source.
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

# Calibration: on a quiet moment of this 2-core machine (load 0.01) `search` at 716 M
# instructions took 150.6 ms (wall median of 40 runs), so an instruction count converts
# into the time a command takes on a quiet machine, which the shared machine's load
# cannot distort. (The first calibration, 414 ms for 1,316 M, was taken when start-up
# was mostly unicode-table compiling; it overstated today's commands by half.)
QUIET_MS_PER_M_INSTRUCTIONS = 150.6 / 716


def command(module: bool = False) -> list[str]:
    """The installed console script next to this interpreter, else (or with `module`:
    a baseline checkout may have another entry point) `python -m chat_recall`."""
    script = Path(sys.executable).parent / "chat-recall"
    if script.exists() and not module:
        return [str(script)]
    return [sys.executable, "-m", "chat_recall"]


def prepare(directory: Path) -> Path:
    path = directory / "small.db"
    history = directory / "history.jsonl"
    history.write_text("\n".join(json.dumps(line) for line in HISTORY) + "\n", encoding="utf-8")
    for step in (["init"], ["import", str(history)], ["index"]):
        subprocess.run(
            [*command(), step[0], "--db", str(path), *step[1:]],
            check=True,
            capture_output=True,
            env=ENVIRONMENT,
        )
    return path


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


Samples = tuple[list[float], list[float]]  # wall and CPU seconds, one per run


def _run(argv: list[str], env: dict[str, str] | None, into: Samples) -> None:
    cpu = _child_cpu()
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False, env=env or ENVIRONMENT)
    into[0].append(time.perf_counter() - started)
    into[1].append(_child_cpu() - cpu)


def time_loop(argv: list[str], runs: int, baseline: Path | None = None) -> tuple[Samples, Samples]:
    """Samples of the current code and, alternating with them, of the baseline's."""
    old_env = None
    if baseline is not None:
        old_env = {**ENVIRONMENT, "PYTHONPATH": str(baseline / ".dev")}
    current: Samples = ([], [])
    before: Samples = ([], [])
    for _ in range(3):  # warm the page cache (and write the bytecode caches)
        subprocess.run(argv, capture_output=True, check=False, env=ENVIRONMENT)
        if old_env is not None:
            subprocess.run(argv, capture_output=True, check=False, env=old_env)
    for _ in range(runs):
        _run(argv, None, current)
        if old_env is not None:
            _run(argv, old_env, before)
    return current, before


def instructions(argv: list[str], env: dict[str, str] | None, runs: int = 1) -> float:
    """Millions of instructions a run executes (callgrind's `Collected`), the median of
    `runs` runs (hash randomisation moves the count by a fraction of a percent)."""
    counts = []
    for _ in range(runs):
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
            capture_output=True,
            text=True,
            check=False,
            env=env or ENVIRONMENT,
        )
        found = re.search(r"Collected : (\d+)", result.stderr)
        counts.append(int(found.group(1)) / 1e6 if found else float("nan"))
    return statistics.median(counts)


def _row(label: str, samples: Samples) -> dict[str, Any]:
    walls, cpus = sorted(samples[0]), samples[1]
    return {
        "command": label,
        "median_ms": statistics.median(walls) * 1000,
        "p90_ms": walls[int(0.9 * (len(walls) - 1))] * 1000,
        "cpu_median_ms": statistics.median(cpus) * 1000,
        "runs": len(walls),
    }


def time_hyperfine(argv: list[str], runs: int, directory: Path) -> list[float]:
    export = directory / "hyperfine.json"
    subprocess.run(
        [
            "hyperfine",
            "--warmup",
            "3",
            "--runs",
            str(runs),
            "--shell=none",
            "--ignore-failure",
            "--export-json",
            str(export),
            subprocess.list2cmdline(argv),
        ],
        check=True,
        capture_output=True,
    )
    times: list[float] = json.loads(export.read_text())["results"][0]["times"]
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="runs per command (default 40)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument(
        "--baseline", type=Path, help="an older checkout to compare with, in the same run"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count executed instructions under valgrind (load-independent)",
    )
    parser.add_argument(
        "--instruction-runs",
        type=int,
        default=3,
        help="valgrind runs per command, median taken (default 3)",
    )
    arguments = parser.parse_args(argv)
    use_hyperfine = shutil.which("hyperfine") is not None
    rows = []
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        database = str(prepare(directory))
        program = command(module=arguments.baseline is not None)
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "--help": [*program, "--help"],
            "--version": [*program, "--version"],
            "search": [*program, "search", "--db", database, "--app", "1", "sessions"],
            "read": [*program, "read", "--db", database, "--app", "1", "--chat", "1"],
            "status": [*program, "status", "--db", database],
        }
        for label, case in cases.items():
            current, before = time_loop(case, arguments.runs, arguments.baseline)
            if use_hyperfine:
                current = (time_hyperfine(case, arguments.runs, directory), current[1])
            rows.append(_row(label, current))
            if arguments.instructions:
                rows[-1]["instructions_m"] = instructions(case, None, arguments.instruction_runs)
            if before[0] and label != "python -c pass":
                rows.append(_row(f"{label} (baseline)", before))
                if arguments.instructions:
                    old_env = {**ENVIRONMENT, "PYTHONPATH": str(arguments.baseline / ".dev")}
                    rows[-1]["instructions_m"] = instructions(
                        case, old_env, arguments.instruction_runs
                    )
    floor = rows[0]["median_ms"]
    print(f"timer: {'hyperfine' if use_hyperfine else 'timing loop'}; command: {' '.join(program)}")
    print(
        f"{'command':<22}{'median ms':>10}{'p90 ms':>10}{'x python':>10}{'cpu ms':>10}"
        f"{'M instr':>10}{'quiet ms':>10}"
    )
    for row in rows:
        if "instructions_m" in row:
            row["quiet_ms_estimate"] = row["instructions_m"] * QUIET_MS_PER_M_INSTRUCTIONS
        print(
            f"{row['command']:<22}{row['median_ms']:>10.1f}{row['p90_ms']:>10.1f}"
            f"{row['median_ms'] / floor:>10.1f}{row['cpu_median_ms']:>10.1f}"
            f"{row.get('instructions_m', float('nan')):>10.0f}"
            f"{row.get('quiet_ms_estimate', float('nan')):>10.0f}"
        )
    if arguments.json is not None:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        arguments.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
