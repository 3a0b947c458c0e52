"""Text handling shared by the index and the query: FTS5-exact tokenisation and the
segmentation of scripts written without spaces."""

from chat_recall.domain.text.segment import (
    SEGMENT_MARK,
    index_text,
    reading_text,
    unmasked,
)
from chat_recall.domain.text.unicode61 import tokenize

__all__ = ["SEGMENT_MARK", "index_text", "reading_text", "tokenize", "unmasked"]
