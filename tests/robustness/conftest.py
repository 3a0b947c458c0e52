"""Both adapters behind the facade, and storage that odd host values can be written to."""

from __future__ import annotations

from tests.robustness.odd_rows import storage
from tests.tools.conftest import recall

__all__ = ["recall", "storage"]
