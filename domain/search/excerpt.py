"""Short excerpts centred on the matched terms, cut from the clean indexed projection
and keeping its lines and indentation.

Works on the index text itself (the same in every adapter), so excerpts are identical
across adapters; segmentation marks are removed at the end.
"""

from __future__ import annotations

import functools
import re

from chat_recall.domain.projection.text import clip_chars, collapse_whitespace, tidy_lines
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


# At most this many characters of a chat title lead a title-only match's excerpt.
TITLE_EXCERPT_CHARS = 80


def title_excerpt(index_title: str, index_body: str, max_chars: int) -> str:
    """The excerpt of a match found only through its chat's title: the title, which is
    what matched, then the start of the message."""
    title = clip_chars(collapse_whitespace(reading_text(index_title)), TITLE_EXCERPT_CHARS)
    lead = f"[chat title: {title}] "
    return lead + _cut(index_body, 0, max(max_chars - len(lead), 1))


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


# How far a cut may move to start at a line or a word, or to end at one.
_SNAP_CHARS = 20


def _cut(index_text: str, start: int, max_chars: int) -> str:
    """About `max_chars` characters from `start`, as the text is written: the cut moves
    to the start of a line near it (so a line of code keeps its indentation) or else of
    a word, and ends at the end of a word; trailing spaces and extra blank lines go."""
    end = min(len(index_text), start + max_chars)
    if end - start < max_chars:
        start = max(0, end - max_chars)
    at_line = start == 0 or index_text[start - 1] == "\n"
    if not at_line:
        reach = min(end, start + _SNAP_CHARS)
        line = index_text.find("\n", start, reach)
        if line >= 0:
            start, at_line = line + 1, True
        else:
            space = _next_space(index_text, start, reach)
            start = space + 1 if space >= 0 else start
    if end < len(index_text):
        space = _last_space(index_text, max(start, end - _SNAP_CHARS), end)
        end = space if space > start else end
    body = tidy_lines(reading_text(index_text[start:end]))
    if not at_line:
        body = body.lstrip()
    prefix = ""
    if start > 0:
        prefix = ELLIPSIS + ("\n" if body[:1] in (" ", "\t") else "")
    suffix = ELLIPSIS if end < len(index_text) else ""
    return f"{prefix}{body}{suffix}"


def _next_space(text: str, start: int, end: int) -> int:
    found = [i for i in (text.find(" ", start, end), text.find("\t", start, end)) if i >= 0]
    return min(found) if found else -1


def _last_space(text: str, start: int, end: int) -> int:
    return max(
        text.rfind(" ", start, end), text.rfind("\t", start, end), text.rfind("\n", start, end)
    )
