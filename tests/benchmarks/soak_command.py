"""`chat-recall <command>` as the soak runs it: the same command line, and at exit the
write transactions over 25 ms it held (when, how long, of that in COMMIT, where) are
written as JSON to the file named first, so the soak can line them up with the host's
stalls.

Run: python -m tests.benchmarks.soak_command OUT.json index --db PATH
"""

from __future__ import annotations

import atexit
import json
import sys
from pathlib import Path

from chat_recall.application import write_lock
from chat_recall.application.write_lock import WriteLockStats


def main() -> None:
    write_lock.KEPT_OVER_MS = 0  # every transaction, to line up with the host's waits
    out = Path(sys.argv.pop(1))
    seen: list[WriteLockStats] = []
    record = WriteLockStats.record

    def recording(
        self: WriteLockStats, seconds: float, *, began: float = 0.0, committing: float = 0.0
    ) -> None:
        if not any(stats is self for stats in seen):
            seen.append(self)
        record(self, seconds, began=began, committing=committing)

    WriteLockStats.record = recording  # type: ignore[method-assign]
    atexit.register(
        lambda: out.write_text(json.dumps([write for stats in seen for write in stats.slow]))
    )
    from chat_recall.adapters.cli.main import program

    program()


if __name__ == "__main__":
    main()
