"""`AdministrationContract`: what every implementation of the admin port
(`IndexAdministration`, the CLI's init, install, uninstall, rebuild, status and repair)
guarantees, whichever database it maintains.

A binding gives the `administration` fixture: the port bound to an empty host database
with the reference schema (a SQLite file not made yet, an empty PostgreSQL schema). The
suite reads the reports by their fields only, so it imports no adapter.
"""

from __future__ import annotations

from typing import Any

from chat_recall.domain.text.language import Language


class AdministrationContract:
    def test_initialise_installs_an_index_that_status_finds_healthy(
        self, administration: Any
    ) -> None:
        report = administration.initialise(Language.ENGLISH)
        assert report.install.previous_version == 0
        assert report.install.version > 0
        status = administration.status()
        assert status.healthy, status.problems
        assert status.schema_version == status.release_schema_version == report.install.version
        assert status.language == Language.ENGLISH.value
        assert status.backlog is not None
        assert status.backlog.messages == 0
        assert all(check.ok for check in status.checks)

    def test_install_again_is_idempotent(self, administration: Any) -> None:
        first = administration.initialise().install
        again = administration.install()
        assert again.previous_version == again.version == first.version
        assert administration.status().healthy

    def test_the_language_installed_is_the_one_recorded(self, administration: Any) -> None:
        administration.initialise(Language.NONE)
        assert administration.recorded_language() is Language.NONE
        administration.install(Language.ENGLISH)  # a change re-indexes, and is recorded
        assert administration.recorded_language() is Language.ENGLISH

    def test_uninstall_drops_what_install_made_and_status_says_how_to_fix_it(
        self, administration: Any
    ) -> None:
        administration.initialise()
        removed = administration.uninstall()
        assert removed.dropped
        status = administration.status()
        assert status.schema_version is None
        assert not status.healthy
        (check,) = [c for c in status.checks if not c.ok]
        assert check.fix == "install"
        assert administration.recorded_language() is None
        assert administration.uninstall().dropped == ()  # nothing left to drop

    def test_rebuild_anew_keeps_the_engine_and_language(self, administration: Any) -> None:
        """What `chat-recall rebuild` does when the index cannot be rebuilt in place."""
        administration.initialise(Language.NONE)
        engine = administration.recorded_engine()
        language = administration.recorded_language()
        administration.uninstall(keep_imports=True)
        administration.install(language)
        assert administration.recorded_language() is Language.NONE
        assert administration.recorded_engine() == engine
        assert administration.status().healthy

    def test_repair_of_a_healthy_index_does_nothing(self, administration: Any) -> None:
        administration.initialise()
        assert administration.repair().done == ()
        assert administration.status().healthy
