"""Whether a stored schema version of chat-recall's derived objects can be used by this
release, whatever the storage engine.

Each adapter stamps the version of its derived objects in its `chat_recall_meta` table
and knows the one version it writes (its own `SCHEMA_VERSION`). A release has no upgrade
code: the versions before it were never published, so an older stamp is a pre-release
install whose tables this release does not read. Every other stamp is refused, by
install, by a read-only start and by the audit alike, and never re-stamped: an older
version (the fix is a rebuild, which drops and recreates only chat-recall's objects), a
version from a newer release (an upgrade of chat-recall, or a rebuild with this one),
and a value that is no version at all (a rebuild).
"""

from __future__ import annotations

from chat_recall.domain.errors import IndexUnavailable
from chat_recall.domain.model import Finding

CHECK = "schema_version"
NOT_INSTALLED = "chat-recall is not installed in this database (run install)"
# How much of a stored value a message quotes (it may be anything, of any length).
SHOWN = 40


def _digits(text: str) -> bool:
    """Whether `text` spells a version: ASCII digits only (not '-1', '2.0', '', ' 1',
    '²', the text of a blob)."""
    return text.isascii() and text.isdigit()


def version_problem(stored: object, release: int) -> Finding | None:
    """The failed `schema_version` check for a stored version this release cannot use
    (None when it can, or when nothing is stored: chat-recall is not installed).
    `release` is the version the adapter writes, the only one it uses."""
    if stored is None:
        return None
    text = str(stored)
    subject = f"version {text[:SHOWN]}"
    if not _digits(text):
        return Finding(
            CHECK,
            subject,
            f"chat_recall_meta holds schema_version {text[:SHOWN]!r}, which is no "
            "chat-recall version: run `chat-recall rebuild` to drop and rebuild the "
            "derived index (host tables are untouched)",
            "rebuild",
        )
    if len(text) > SHOWN or int(text) > release:  # (int() refuses thousands of digits)
        return Finding(
            CHECK,
            subject,
            f"the derived index was written by a newer chat-recall (schema version "
            f"{text[:SHOWN]}; this release knows up to {release}): upgrade chat-recall, "
            "or run `chat-recall rebuild` with this release",
            "upgrade",
        )
    if int(text) < release:
        return Finding(
            CHECK,
            subject,
            f"the derived index was written by a pre-release chat-recall (schema version "
            f"{text}; this release uses version {release} and does not upgrade older ones): "
            "run `chat-recall rebuild` to drop and rebuild the derived index (host tables "
            "are untouched)",
            "rebuild",
        )
    return None


def installed_version(version: int) -> Finding:
    """The `schema_version` check of a usable installed version: sound."""
    return Finding(CHECK, f"version {version}")


def not_installed() -> Finding:
    """The `schema_version` check where chat-recall's objects are absent."""
    return Finding(CHECK, "chat-recall", "not installed", "install")


def usable_version(stored: object, release: int) -> int:
    """The installed version (0: nothing stored, not installed; else `release`). Raises
    IndexUnavailable naming the fix for a version this release cannot use
    (`version_problem`)."""
    problem = version_problem(stored, release)
    if problem is not None:
        raise IndexUnavailable(problem.problem or CHECK)
    return 0 if stored is None else int(str(stored))


def reported_version(stored: object) -> int | str | None:
    """A stored version as status reports it: the number, else the stored value as
    text (cut short), None when nothing is stored."""
    if stored is None:
        return None
    text = str(stored)
    return int(text) if _digits(text) and len(text) <= SHOWN else text[:SHOWN]
