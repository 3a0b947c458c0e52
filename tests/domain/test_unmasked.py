"""What the redaction sees: no invisible character inside a credential, plain spaces."""

from __future__ import annotations

import sys
import unicodedata

from chat_recall.domain.text import unmasked


def test_every_format_character_between_ascii_characters_is_removed() -> None:
    formats = [
        chr(code)
        for code in range(0x80, sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf"
    ]
    assert len(formats) > 150
    for char in formats:
        assert unmasked(f"AKIA{char}XYZ{char}{char}9") == "AKIAXYZ9", hex(ord(char))


def test_joiners_between_other_characters_stay() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji, three joined
    persian = "می\u200cخواهم"  # a zero-width non-joiner inside a word
    text = f"{family} {persian} \u200b start and end \u200b"
    assert unmasked(text) == text


def test_ascii_text_is_returned_as_it_is() -> None:
    text = "plain ascii, nothing invisible"
    assert unmasked(text) is text


def test_other_spaces_and_separators_become_ascii_spaces() -> None:
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Zs"]
    for space in spaces:
        assert unmasked(f"password:{space}hunter2") == "password: hunter2", hex(ord(space))
    assert unmasked("a\u2028b\u2029c") == "a b c"
