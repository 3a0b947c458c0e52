"""Model files on this machine: a directory a user names, or one a package installed
(found without importing that package: some configure logging at import)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from chat_recall.domain.errors import EmbeddingUnavailable


def package_directory(package: str, extra: str) -> Path:
    """The installed directory of `package`, not imported; EmbeddingUnavailable naming
    what to install when it is missing."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    locations = None if spec is None else spec.submodule_search_locations
    if not locations:
        raise EmbeddingUnavailable(
            f"the model package {package!r} is not installed (pip install '{extra}')"
        )
    return Path(next(iter(locations)))


def required_file(directory: Path, name: str) -> Path:
    path = directory / name
    if not path.is_file():
        raise EmbeddingUnavailable(f"the model directory {directory} has no {name}")
    return path


def import_or_explain(module: str) -> object:
    """Import an optional dependency of the semantic layer, or say which extra has it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise EmbeddingUnavailable(
            f"semantic search needs {module!r}: pip install 'chat-recall[semantic]'"
        ) from error
