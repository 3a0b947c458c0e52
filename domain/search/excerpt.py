"""Short excerpts centred on the matched terms, cut from the clean indexed projection.

Works on the index text itself (the same in every adapter), so excerpts are identical
across adapters; segmentation marks are removed at the end.
"""

from __future__ import annotations

import functools
import re

from chat_recall.domain.projection.text import collapse_whitespace
from chat_recall.domain.text import reading_text
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.unicode61 import same_length_fold, token_run_character

ELLIPSIS = "…"


@functools.lru_cache(maxsize=64)
def _phrase_pattern(tokens: tuple[str, ...], token: str) -> re.Pattern[str]:
    """The tokens in order, separated by non-token characters only, as whole tokens of a
    same-length folded text (`token`: the class of its token run characters)."""
    gap = "[^" + token[1:] + "+"
    body = gap.join(re.escape(t) for t in tokens)
    return re.compile(f"(?<!{token}){body}(?!{token})")


def holds_phrase(index_text: str, tokens: tuple[str, ...]) -> bool:
    """Whether the text holds `tokens` (index tokens) as consecutive tokens."""
    if not tokens:
        return False
    folded = same_length_fold(index_text)
    pattern = _phrase_pattern(tokens, token_run_character(index_text))
    return pattern.search(folded) is not None


def matched_terms(
    index_text: str, wanted: frozenset[str], analysis: TextAnalysis
) -> frozenset[str]:
    return frozenset(term for _, _, term in analysis.find_terms(index_text, wanted))


def highlight(
    index_text: str, wanted: frozenset[str], max_chars: int, analysis: TextAnalysis
) -> tuple[frozenset[str], str]:
    """The wanted terms the text holds, and its excerpt, from one scan."""
    hits = analysis.find_terms(index_text, wanted)
    return frozenset(term for _, _, term in hits), _excerpt(index_text, hits, max_chars)


def _excerpt(index_text: str, hits: list[tuple[int, int, str]], max_chars: int) -> str:
    """About `max_chars` characters around the densest cluster of hits (the start of the
    text when there is none)."""
    if not hits:
        return _cut(index_text, 0, max_chars)
    best = (0, -1, 0)  # (distinct terms, -start, index of first hit)
    right = 0
    for left in range(len(hits)):
        right = max(right, left)
        while right + 1 < len(hits) and hits[right + 1][1] - hits[left][0] <= max_chars:
            right += 1
        distinct = len({hit[2] for hit in hits[left : right + 1]})
        if (distinct, -hits[left][0]) > best[:2]:
            best = (distinct, -hits[left][0], left)
    first = hits[best[2]]
    last_end = max(end for start, end, _ in hits[best[2] :] if end - first[0] <= max_chars)
    slack = max_chars - (last_end - first[0])
    start = max(0, first[0] - slack // 2)
    return _cut(index_text, start, max_chars)


def _cut(index_text: str, start: int, max_chars: int) -> str:
    end = min(len(index_text), start + max_chars)
    if end - start < max_chars:
        start = max(0, end - max_chars)
    if start > 0:
        space = index_text.find(" ", start, min(end, start + 20))
        start = space + 1 if space >= 0 else start
    if end < len(index_text):
        space = index_text.rfind(" ", max(start, end - 20), end)
        end = space if space > start else end
    body = collapse_whitespace(reading_text(index_text[start:end]))
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(index_text) else ""
    return f"{prefix}{body}{suffix}"
