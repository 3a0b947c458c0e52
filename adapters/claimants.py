"""`ProcessClaimants`: indexers named by machine and process in the queue's claim."""

from __future__ import annotations

import os
import secrets
import socket
import weakref

import attrs

# The live indexers of this process, by name: a claim that names this process but no
# live indexer was left by one that was dropped without `stop()`.
_LIVE: weakref.WeakValueDictionary[str, object] = weakref.WeakValueDictionary()


def _host_and_pid(holder: str) -> tuple[str, str]:
    """The machine and process a name says ("", holder for another form)."""
    host, _, pid = holder.rpartition(":")[0].rpartition(":")
    return (host, pid) if host else ("", holder)


@attrs.frozen
class ProcessClaimants:
    """`host:pid:nonce` names. A holder of another machine is never known gone (its
    claim runs out); one of this machine is gone when its process is; one of this
    process when its indexer no longer exists."""

    def name(self, owner: object) -> str:
        holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        _LIVE[holder] = owner
        return holder

    def describe(self, holder: str) -> str:
        host, pid = _host_and_pid(holder)
        return f"process {pid}" if host == socket.gethostname() else f"process {pid} on {host}"

    def gone(self, holder: str) -> bool:
        host, pid_text = _host_and_pid(holder)
        if host != socket.gethostname() or not pid_text.isdigit():
            return False
        pid = int(pid_text)
        if pid == os.getpid():
            return holder not in _LIVE
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # e.g. another user's process: alive
            return False
        return False
