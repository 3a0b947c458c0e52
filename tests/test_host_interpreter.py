"""chat-recall inside someone else's process leaves that process as it found it: no
change to the garbage collector or the switch interval, ever (not even for a moment
during a backfill, as a host thread sampling them would see), no signal handler,
logging configuration or exception hook set, and every thread, process and atexit hook
it adds is gone after `close()` or the end of the `with` block.

Each case runs in a fresh interpreter, so what the test process imported before cannot
hide an import that registers an atexit hook."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(
    """
    import atexit, gc, json, logging, signal, sys, threading
    from pathlib import Path

    path, engine_name, processes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    host_interval = 0.004  # the host's own settings, not the defaults
    sys.setswitchinterval(host_interval)
    gc.disable()
    def process_state():
        return {
            "threads": sorted(t.name for t in threading.enumerate()),
            "atexit": atexit._ncallbacks(),
            "signals": {
                s.name: repr(signal.getsignal(s))
                for s in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE,
                          signal.SIGHUP, signal.SIGUSR1)
            },
            "logging": [logging.root.level, repr(logging.root.handlers),
                        logging.root.manager.disable],
            "hooks": [repr(sys.excepthook), repr(threading.excepthook)],
        }
    before = process_state()
    calls = []
    for module, name in [(gc, "enable"), (gc, "disable"), (gc, "freeze"), (gc, "collect"),
                         (sys, "setswitchinterval")]:
        real = getattr(module, name)
        def recorder(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)
        setattr(module, name, recorder)
    seen = set()
    stop = threading.Event()
    def sample():  # a host thread watching its own settings
        while not stop.is_set():
            seen.add((gc.isenabled(), sys.getswitchinterval()))
            stop.wait(0.0002)
    sampler = threading.Thread(target=sample, name="host-sampler")
    sampler.start()

    import chat_recall
    from chat_recall import Engine, IndexerSettings, PlanningSettings
    from chat_recall.domain.messages import Role

    planning = PlanningSettings(processes=processes, min_backlog=1)
    settings = IndexerSettings(planning=planning)
    engine = Engine(engine_name)
    with chat_recall.sqlite(Path(path), create_host_schema=True, engine=engine) as recall:
        chat = recall.host.create_chat(1, "t", 1)
        for i in range(300):
            recall.host.add_message(chat, Role.USER, f"message {i} about sessions", i + 2)
    with chat_recall.sqlite(Path(path), engine=engine, settings=settings) as recall:
        recall.indexer.run_batch()
        pids = list(getattr(recall.indexer.planner, "process_ids", []))
        recall.start()
        indexed = recall.wait_until_indexed(timeout=60)
    stop.set()
    sampler.join()
    after = process_state()
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z":
                alive.append(pid)
        except FileNotFoundError:
            pass
    print(json.dumps({
        "before": before, "after": after, "calls": calls, "indexed": indexed,
        "seen": sorted(seen), "gc_enabled": gc.isenabled(),
        "interval": sys.getswitchinterval(), "planning_pids": pids, "alive": alive,
    }))
    """
)


@pytest.mark.parametrize(("engine", "processes"), [("sqlite", 0), ("tantivy", 0), ("sqlite", 1)])
def test_the_hosts_interpreter_is_left_as_it_was(
    tmp_path: Path, engine: str, processes: int
) -> None:
    root = Path(__file__).parent.parent
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "host.db"), engine, str(processes)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout.strip().splitlines()[-1])
    assert out["indexed"]
    assert out["calls"] == []  # never touched, not even to put back
    assert out["seen"] == [[False, 0.004]]  # what the host set, throughout
    assert out["gc_enabled"] is False
    assert out["interval"] == 0.004
    assert out["after"]["threads"] == out["before"]["threads"]
    assert out["after"]["atexit"] == out["before"]["atexit"]
    assert out["after"]["signals"] == out["before"]["signals"]
    assert out["after"]["logging"] == out["before"]["logging"]
    assert out["after"]["hooks"] == out["before"]["hooks"]
    if processes:
        assert out["planning_pids"]  # planning processes ran, and are gone
    assert out["alive"] == []
