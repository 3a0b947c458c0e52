"""Properties: a secret embedded anywhere in random text never survives projection,
excerpting and budgeting as 8 or more characters of itself; redacting only the windows
the cap keeps gives exactly what redacting the whole text gives."""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat_recall.application.tools.read_chat import MESSAGE_BUDGET_BYTES, MESSAGE_TAIL_BYTES
from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import (
    PROJECTION_MAX_BYTES,
    project,
    project_for_read,
    project_for_search,
)
from chat_recall.domain.projection.text import cap_utf8, clip_chars
from chat_recall.domain.search.excerpt import highlight
from chat_recall.domain.text import index_text, reading_text
from chat_recall.domain.text.analysis import DEFAULT_ANALYSIS
from tests.redaction.leaks import leaked
from tests.redaction.samples import Positive, positives

SAMPLES = len(positives())


@lru_cache(maxsize=64)
def _samples(seed: int) -> list[Positive]:
    return positives(seed)


noise = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], max_codepoint=0x2FFF),
    max_size=200,
)
separators = st.sampled_from([" ", "\n", "\t", "\n\n", " \n ", ". ", ": "])
# Filler long enough that the projection's cap (head 24 KB, tail 8 KB) can fall on the
# secret, with words and whitespace runs in varying proportions.
filler = st.tuples(
    st.integers(0, 40_000), st.sampled_from(["lorem ipsum ", "a  ", "x", "word\n\n\n"])
).map(lambda pair: (pair[1] * (pair[0] // len(pair[1]) + 1))[: pair[0]])


@st.composite
def embedded(draw: st.DrawFn) -> tuple[MessageText, Positive]:
    sample = _samples(draw(st.integers(0, 50)))[draw(st.integers(0, SAMPLES - 1))]
    before = draw(noise) + draw(filler) + draw(noise)
    after = draw(noise) + draw(filler)
    text = before + draw(separators) + sample.text + draw(separators) + after
    role = draw(st.sampled_from(["user", "assistant"]))
    message = MessageText.user(text) if role == "user" else MessageText.assistant(text)
    return message, sample


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(embedded())
def test_no_secret_survives_projection_excerpts_and_budgets(
    case: tuple[MessageText, Positive],
) -> None:
    message, sample = case
    search = project_for_search(message)
    read = project_for_read(message)
    body = index_text(search.text)
    # What a search returns: excerpts around the secret's own tokens (an agent that
    # searches for a fragment it remembers) and around the context words.
    terms = DEFAULT_ANALYSIS.terms
    wanted = frozenset(terms(sample.secret)) | frozenset(terms(sample.text))
    outputs = [
        search.text,
        read.text,
        reading_text(highlight(body, wanted, 220, DEFAULT_ANALYSIS)[1]),
        reading_text(
            highlight(body, frozenset(terms("key password token")), 220, DEFAULT_ANALYSIS)[1]
        ),
        # What a read returns: the per-message budget, then a title-sized clip.
        cap_utf8(read.text, MESSAGE_BUDGET_BYTES, MESSAGE_TAIL_BYTES)[0],
        clip_chars(read.text, 200),
    ]
    for output in outputs:
        assert leaked(sample.secret, output) == []


def _full(message: MessageText, mode: str) -> tuple[str, bool]:
    saved = project._WINDOWED_ABOVE
    project._WINDOWED_ABOVE = 10**12
    try:
        result = (project_for_search if mode == "search" else project_for_read)(message)
    finally:
        project._WINDOWED_ABOVE = saved
    return result.text, result.truncated


@pytest.mark.parametrize("mode", ["search", "read"])
@pytest.mark.parametrize("layout", ["edges", "dense", "whitespace", "keys"])
def test_windowed_redaction_equals_whole_text_redaction(mode: str, layout: str) -> None:
    samples = positives(3)
    words = "session cookie login token " * 20
    if layout == "edges":
        # Secrets around every place a window edge or the cap can fall.
        pieces = []
        for index in range(1000):
            pieces.append(words)
            pieces.append(samples[index % len(samples)].text)
        text = "\n".join(pieces)
    elif layout == "dense":
        text = "\n".join(s.text for s in samples) * 60
    elif layout == "whitespace":
        text = ("x" + " " * 2000 + "\n" * 50) * 300 + samples[0].text + " " * 100_000
    else:
        key = next(s for s in samples if s.kind == "private-key" and "END" in s.text)
        text = (key.text + "\n" + words) * 400
    assert len(text) > project._WINDOWED_ABOVE
    for role in ("user", "assistant"):
        message = MessageText.user(text) if role == "user" else MessageText.assistant(text)
        projection = (project_for_search if mode == "search" else project_for_read)(message)
        assert (projection.text, projection.truncated) == _full(message, mode)
        assert len(projection.text.encode("utf-8")) <= PROJECTION_MAX_BYTES
        for sample in samples:
            assert leaked(sample.secret, projection.text) == []
