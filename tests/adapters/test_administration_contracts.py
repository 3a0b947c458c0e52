"""Every implementation of the admin port opts into its contract suite with one class:
a SQLite file (FTS5, and tantivy once it built the index) and PostgreSQL (a real server
the test run starts itself: tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_recall.adapters import bootstrap
from chat_recall.adapters.administration import IndexAdministration
from chat_recall.adapters.host_database import PostgresUrl, SqliteFile
from chat_recall.adapters.host_schema import HostSchema
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.contracts.administration import AdministrationContract


class TestSqliteAdministration(AdministrationContract):
    @pytest.fixture
    def administration(self, tmp_path: Path) -> IndexAdministration:
        return bootstrap.administration(SqliteFile(tmp_path / "host.db"), HostSchema.reference())


class _TantivyBuilt:
    """The SQLite file's port, where each install is followed by the tantivy engine
    taking the index over (as `bootstrap.sqlite(engine=Engine.TANTIVY)` does at start)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = bootstrap.administration(SqliteFile(path), HostSchema.reference())

    def _take_over(self) -> None:
        bootstrap.sqlite(self.path, install=True, engine=Engine.TANTIVY).close()

    def initialise(self, *args: object) -> object:
        report = self.port.initialise(*args)  # type: ignore[arg-type]
        self._take_over()
        return report

    def install(self, *args: object) -> object:
        report = self.port.install(*args)  # type: ignore[arg-type]
        self._take_over()
        return report

    def __getattr__(self, name: str) -> object:
        return getattr(self.port, name)


class TestTantivyAdministration(AdministrationContract):
    @pytest.fixture
    def administration(self, tmp_path: Path) -> object:
        return _TantivyBuilt(tmp_path / "host.db")

    def test_the_engine_recorded_is_tantivy(self, administration: _TantivyBuilt) -> None:
        administration.initialise()
        assert administration.port.recorded_engine() is Engine.TANTIVY


class TestPostgresAdministration(AdministrationContract):
    @pytest.fixture
    def administration(self, postgres_dsn: str) -> IndexAdministration:
        return bootstrap.administration(PostgresUrl(postgres_dsn), HostSchema.reference())
