"""Run a script in a process that cannot write a directory, the way a host's database
may be shipped: read-only permissions when we are not root, and a read-only bind mount
of the directory (its own mount namespace) when we are, since permissions do not stop
root. Either way the denial comes from the operating system, not from chat-recall."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

MOUNT_READ_ONLY = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'


def run_read_only(directory: Path, script: str) -> Any:
    """Run `script` (Python) with `directory` read-only; it prints one JSON line last,
    which is returned."""
    command = [sys.executable, "-c", script]
    restore: list[tuple[Path, int]] = []
    if os.geteuid() == 0:
        command = ["unshare", "--mount", "sh", "-c", MOUNT_READ_ONLY, str(directory), *command]
    else:
        for path in [*directory.iterdir(), directory]:
            mode = path.stat().st_mode
            restore.append((path, mode))
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    finally:
        for path, mode in reversed(restore):
            path.chmod(mode)
    if result.returncode != 0:
        pytest.fail(f"read-only run failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])
