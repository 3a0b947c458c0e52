"""Session-wide fixtures: one throwaway PostgreSQL server for the whole run (started on
first use), and a fresh schema per test on it."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import NoReturn

import pytest

from tests.postgres_server import Server, ServerUnavailable, running_server

_schemas = itertools.count(1)


def server_missing(missing: ServerUnavailable) -> NoReturn:
    """In CI (`CI` set, as `.ci/run` does) a missing PostgreSQL server fails the run;
    elsewhere (a laptop without the binaries) the PostgreSQL suites are skipped."""
    if os.environ.get("CI"):
        pytest.fail(f"the PostgreSQL suites cannot be skipped in CI: {missing}")
    pytest.skip(str(missing))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Server]:
    try:
        with running_server() as server:
            yield server
    except ServerUnavailable as missing:
        server_missing(missing)


@pytest.fixture
def postgres_dsn(postgres_server: Server) -> Iterator[str]:
    """A DSN whose search_path is a new, empty schema (dropped after the test)."""
    import psycopg

    name = f"t{os.getpid()}_{next(_schemas)}"
    admin = postgres_server.dsn()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {name}")
    yield postgres_server.dsn(options=f"-csearch_path%3D{name}")
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
