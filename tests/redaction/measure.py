"""How often redaction fires on text that holds no credential.

Run: python -m tests.redaction.measure [--code-root DIR ...] [--show N]
Prints, per corpus, the size, the number of texts and of redacted values, and the
first redactions with their context for review. Asserts nothing (the zero-on-prose
check is `test_false_positives.py`).

Corpora: prose = the relevance evaluation set, the sample history of the demo, 20,000
messages of the scale fixture's generator (user and assistant), all with their chat
titles; code = this repository's source files (and any extra `--code-root`).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import attrs

from chat_recall.adapters.cli.sample_history import SAMPLE_APPS
from chat_recall.domain.messages import MessageText
from chat_recall.domain.projection import project_for_read, project_for_search
from chat_recall.domain.projection.project import redact_title
from chat_recall.domain.redaction import DEFAULT_REDACTION, redact
from tests.benchmarks.fixture import Writer
from tests.evaluation.corpus import load_apps

REPOSITORY = Path(__file__).resolve().parents[2]
CODE_SUFFIXES = {".py", ".toml", ".md", ".json", ".yaml", ".yml", ".cfg", ".ini", ".txt"}


@attrs.frozen
class Text:
    source: str
    message: MessageText


def prose_corpus(generated: int = 20_000) -> Iterator[Text]:
    """Every message and title of the prose corpora (titles as user text)."""
    for app in load_apps():
        for chat in app.chats:
            yield Text(f"evaluation:{chat.key}:title", MessageText.user(chat.title or ""))
            for index, message in enumerate(chat.messages):
                text = MessageText(message.role, message.content, message.is_compaction_summary)
                yield Text(f"evaluation:{chat.key}:{index}", text)
    for chats in SAMPLE_APPS.values():
        for title, messages in chats:
            yield Text(f"sample:{title}", MessageText.user(title))
            for index, message in enumerate(messages):
                yield Text(f"sample:{title}:{index}", message)
    writer = Writer(seed=7)
    for index in range(generated):
        if index % 20 == 0:
            yield Text(f"fixture:title:{index}", MessageText.user(writer.prose(2, 5)[:-1]))
        if index % 2 == 0:
            yield Text(f"fixture:{index}", MessageText.user(writer.user_message()))
        else:
            yield Text(f"fixture:{index}", MessageText.assistant(writer.assistant_message(None)))


def code_files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        for path in sorted(root.rglob("*")):
            skipped = {".venv", ".git", "__pycache__", "node_modules", "bench-results"}
            if path.is_file() and path.suffix in CODE_SUFFIXES and not skipped & set(path.parts):
                yield path


@attrs.frozen
class Hit:
    source: str
    kind: str
    context: str


@attrs.frozen
class Tally:
    name: str
    texts: int = 0
    characters: int = 0
    redacted_texts: int = 0
    redactions: int = 0
    kinds: Counter[str] = attrs.field(factory=Counter)
    hits: list[Hit] = attrs.field(factory=list)

    def line(self) -> str:
        per_mb = self.redactions / max(self.characters / 1e6, 1e-9)
        return (
            f"{self.name}: {self.texts:,} texts, {self.characters / 1e6:.2f} M characters; "
            f"{self.redactions} redactions in {self.redacted_texts} texts "
            f"({self.redacted_texts / max(self.texts, 1):.3%} of texts, {per_mb:.1f} per M "
            f"characters) {dict(self.kinds.most_common())}"
        )


def measure_prose() -> Tally:
    tally = Tally("prose")
    for item in prose_corpus():
        search = project_for_search(item.message)
        read = project_for_read(item.message)
        counts = Counter(search.redactions) | Counter(read.redactions)
        _count(tally, item.source, item.message.content, counts)
    return tally


def measure_code(roots: list[Path]) -> Tally:
    tally = Tally("code")
    for path in code_files(roots):
        text = path.read_text(encoding="utf-8", errors="replace")
        counts = Counter(redact(text, DEFAULT_REDACTION).counts)
        _count(tally, str(path), text, counts)
    return tally


def _count(tally: Tally, source: str, text: str, counts: Counter[str]) -> None:
    object.__setattr__(tally, "texts", tally.texts + 1)
    object.__setattr__(tally, "characters", tally.characters + len(text))
    total = sum(counts.values())
    if not total:
        return
    object.__setattr__(tally, "redactions", tally.redactions + total)
    object.__setattr__(tally, "redacted_texts", tally.redacted_texts + 1)
    tally.kinds.update(counts)
    redacted = redact(text, DEFAULT_REDACTION).text
    at = redacted.find("[redacted ")
    context = redacted[max(0, at - 60) : at + 60].replace("\n", "⏎")
    tally.hits.append(Hit(source, ",".join(sorted(counts)), context))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code-root", type=Path, action="append", default=[])
    parser.add_argument("--show", type=int, default=40)
    options = parser.parse_args()
    prose = measure_prose()
    code = measure_code([REPOSITORY, *options.code_root])
    _ = redact_title  # titles go through the same redactor as user text
    for tally in (prose, code):
        print(tally.line())
        for hit in tally.hits[: options.show]:
            print(f"  {hit.source} [{hit.kind}] …{hit.context}…")


if __name__ == "__main__":
    main()
