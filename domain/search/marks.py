"""Which parts of a shown text a reader's view marks as the query's words.

A person reading results wants to see why a chat matched: the words the index matched,
in the excerpt and in the messages around a hit. They are found with the index's own
`TextAnalysis` and the query's own terms (`build_query`), so what is marked is what was
searched for: with stemming, `sessions` marks `Session` and `sessions'` too, and a
stopword the search dropped is not marked. Pure: the text is the tool's output as it
was returned; marking only cuts it into parts and never changes a character.
"""

from __future__ import annotations

import attrs

from chat_recall.domain.search.query_builder import build_query
from chat_recall.domain.text.analysis import TextAnalysis


@attrs.frozen
class Part:
    """A run of a shown text, marked when it is one of the query's words."""

    text: str
    marked: bool = False


def marked_parts(text: str, query: str, analysis: TextAnalysis) -> tuple[Part, ...]:
    """`text` cut into parts, the tokens whose term is one of `query`'s terms marked.
    Joining the parts' texts gives `text` back exactly."""
    wanted = build_query(query, analysis).wanted
    parts: list[Part] = []
    position = 0
    for start, end, _ in analysis.find_terms(text, wanted):
        if start > position:
            parts.append(Part(text[position:start]))
        parts.append(Part(text[start:end], marked=True))
        position = end
    if position < len(text) or not parts:
        parts.append(Part(text[position:]))
    return tuple(parts)
