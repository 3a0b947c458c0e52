"""Both adapters behind the facade (the same fixture the tool tests use)."""

from __future__ import annotations

from tests.tools.conftest import recall

__all__ = ["recall"]
