"""The importers chat-recall ships, one per format, and recognising a path's format
when the user does not name it (`chat-recall import` without `--from`)."""

from __future__ import annotations

from chat_recall.adapters.importers.chatgpt import ChatGptImporter
from chat_recall.adapters.importers.claude import ClaudeImporter
from chat_recall.adapters.importers.claude_code import ClaudeCodeImporter
from chat_recall.adapters.importers.jsonl import JsonLinesImporter
from chat_recall.application.importing import Importer, SourceFiles
from chat_recall.domain.errors import InvalidArguments
from chat_recall.domain.imports import SourceFormat

# In the order they are asked whether they recognise a path.
IMPORTERS: tuple[Importer, ...] = (
    ChatGptImporter(),
    ClaudeImporter(),
    ClaudeCodeImporter(),
    JsonLinesImporter(),
)


def importer_of(format: SourceFormat) -> Importer:
    return next(importer for importer in IMPORTERS if importer.format is format)


def recognised(files: SourceFiles) -> Importer:
    """The importer whose format the files hold; InvalidArguments naming the choices
    when none recognises them."""
    for importer in IMPORTERS:
        if importer.recognises(files):
            return importer
    choices = "|".join(format.value for format in SourceFormat)
    raise InvalidArguments(
        f"cannot tell which export {files.label} is: name it with --from {choices}"
    )
