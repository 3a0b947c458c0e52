"""`UncheckedIndexAudit`: for a third party's adapter that brings no audit of its own.
It says honestly that nothing was checked, and repairs nothing."""

from __future__ import annotations

import attrs

from chat_recall.domain.model import Finding


@attrs.define
class UncheckedIndexAudit:
    def check(self, *, deep: bool = True) -> list[Finding]:
        return [Finding("audit", "index", "this storage adapter provides no checks", None)]

    def repair(self) -> list[str]:
        return []
