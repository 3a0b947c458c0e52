"""A throwaway PostgreSQL server for the test run: `initdb` in a temporary directory as an
unprivileged user, listening on loopback only, stopped at the end.

PostgreSQL refuses to run as root, and CI runs as root: then the server runs as the
`postgres` system user the Debian package creates (or a system user made for it).
Without the server binaries the PostgreSQL tests are skipped locally, but fail when the
`CI` environment variable is set: a PostgreSQL suite skipped in CI is a failure.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import attrs

SERVER_USER = "postgres"
FALLBACK_USER = "chat-recall-pg"
DATABASE_USER = "chat_recall"
# Fast and throwaway: nothing here must survive a crash of the test machine.
SETTINGS = (
    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
    "-c max_connections=200 -c shared_buffers=128MB"
)


class ServerUnavailable(Exception):
    """No PostgreSQL server binaries on this machine."""


def bindir() -> Path:
    """Where initdb and pg_ctl are: $CHAT_RECALL_PG_BINDIR, pg_config, or Debian's
    /usr/lib/postgresql/<version>/bin (the newest)."""
    configured = os.environ.get("CHAT_RECALL_PG_BINDIR")
    candidates = [Path(configured)] if configured else []
    pg_config = shutil.which("pg_config")
    if pg_config:
        output = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        if output.returncode == 0:
            candidates.append(Path(output.stdout.strip()))
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))
    candidates += [Path(p) for p in reversed(debian)]
    for candidate in candidates:
        if (candidate / "initdb").is_file() and (candidate / "pg_ctl").is_file():
            return candidate
    raise ServerUnavailable(
        "no PostgreSQL server binaries (initdb, pg_ctl) found: install postgresql-15 "
        "(apt-get install postgresql-15) or set CHAT_RECALL_PG_BINDIR"
    )


def _server_user() -> str | None:
    """The user the server runs as: None to run as ourselves (not root)."""
    if os.geteuid() != 0:
        return None
    for name in (SERVER_USER, FALLBACK_USER):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FALLBACK_USER],
        check=True,
    )
    return FALLBACK_USER


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@attrs.frozen
class Server:
    host: str
    port: int
    user: str

    def dsn(self, database: str = "postgres", **options: str) -> str:
        query = "&".join(f"{key}={value}" for key, value in options.items())
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}" + (
            f"?{query}" if query else ""
        )


@contextlib.contextmanager
def running_server() -> Iterator[Server]:
    binaries = bindir()
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="chat-recall-pg-"))
    data = root / "data"

    def run(*command: str) -> None:
        prefix = ["runuser", "-u", user, "--"] if user else []
        result = subprocess.run([*prefix, *command], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {result.stdout}\n{result.stderr}")

    if user:
        shutil.chown(root, user)
    os.chmod(root, 0o700)
    run(
        str(binaries / "initdb"),
        "-D",
        str(data),
        "-U",
        DATABASE_USER,
        "--auth=trust",
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync",
    )
    port = _free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} {SETTINGS}"
    run(
        str(binaries / "pg_ctl"),
        "-D",
        str(data),
        "-o",
        options,
        "-l",
        str(root / "log"),
        "-w",
        "start",
    )
    try:
        yield Server("127.0.0.1", port, DATABASE_USER)
    finally:
        with contextlib.suppress(RuntimeError):
            run(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


def terminate_other_connections(dsn: str) -> int:
    """Drop every other connection of this user to this database, as a server restart
    or an administrator would (the pools' connections among them); returns how many."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as connection:
        row = connection.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE usename = current_user AND pid <> pg_backend_pid() "
            "AND datname = current_database()"
        ).fetchone()
    assert row is not None
    return int(row[0])
