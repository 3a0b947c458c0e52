"""No redaction on ordinary prose: the relevance evaluation set, the demo's sample
history and messages of the scale fixture's generator, with their titles. (The rate on
code is measured, not asserted: `python -m tests.redaction.measure`.)"""

from __future__ import annotations

from chat_recall.domain.projection import project_for_read, project_for_search
from tests.redaction.measure import prose_corpus


def test_prose_is_never_redacted() -> None:
    redacted = []
    texts = 0
    for item in prose_corpus(generated=3_000):
        texts += 1
        for projection in (project_for_search(item.message), project_for_read(item.message)):
            if projection.redacted:
                redacted.append((item.source, projection.redactions))
    assert texts > 3_000
    assert redacted == []
