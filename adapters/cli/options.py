"""Flags shared by several commands, each with help text that gives its range and
default. Tool flags take their bounds and defaults from the tool's JSON Schema (the one
definition the model sees too), so the CLI refuses out-of-range values as usage errors
naming the flag."""

from __future__ import annotations

import argparse
import os
import shlex
from typing import Any

DB_VARIABLE = "CHAT_RECALL_DB"
SCHEMA_VARIABLE = "CHAT_RECALL_SCHEMA"
APP_VARIABLE = "CHAT_RECALL_APP"

FORMATS = ("json", "pretty", "text")


def _from_environment(name: str) -> str | None:
    return os.environ.get(name) or None


def add_database(parser: argparse.ArgumentParser, *, schema: bool = True) -> None:
    default = _from_environment(DB_VARIABLE)
    parser.add_argument(
        "--db",
        metavar="DB",
        default=default,
        required=default is None,
        help=(
            "the SQLite database file, or a PostgreSQL URL (postgresql://user@host/db) "
            f"(default: ${DB_VARIABLE})"
        ),
    )
    if schema:
        parser.add_argument(
            "--schema",
            metavar="FILE",
            default=_from_environment(SCHEMA_VARIABLE),
            help=(
                "JSON object of HostSchema fields naming the host's own tables and columns "
                f"(default: ${SCHEMA_VARIABLE}, else the reference schema: chats, messages)"
            ),
        )


class IntRange:
    """An argparse type: an integer within [low, high] (high None: no upper bound)."""

    def __init__(self, low: int | None, high: int | None) -> None:
        self.low, self.high = low, high
        self.__name__ = "integer"

    def describe(self) -> str:
        if self.low is not None and self.high is not None:
            return f"{self.low}-{self.high}"
        if self.low is not None:
            return f"{self.low} or more"
        return "any integer"

    def __call__(self, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise argparse.ArgumentTypeError(f"must be an integer from {self.describe()}")
        return value


def add_app(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    default = _from_environment(APP_VARIABLE)
    parser.add_argument(
        "--app",
        metavar="ID",
        type=IntRange(None, None),
        default=None if default is None else IntRange(None, None)(default),
        required=required and default is None,
        help=f"the app whose chats are searched and read (default: ${APP_VARIABLE})",
    )


def add_current(parser: argparse.ArgumentParser, *, message: bool = True) -> None:
    parser.add_argument(
        "--current-chat",
        metavar="ID",
        type=IntRange(1, None),
        help="the chat the agent works in: left out of search results (default: none)",
    )
    if message:
        parser.add_argument(
            "--current-message",
            metavar="ID",
            type=IntRange(1, None),
            help=(
                "the in-flight message of --current-chat: reading that chat stops before "
                "it (default: none)"
            ),
        )


def add_tool_flag(
    parser: argparse._ActionsContainer,
    flag: str,
    input_schema: dict[str, Any],
    argument: str,
    *,
    help_text: str | None = None,
) -> None:
    """A flag for one tool argument: range, default and description from its schema."""
    spec = input_schema["properties"][argument]
    kind = IntRange(spec.get("minimum"), spec.get("maximum"))
    default = f"default {spec['default']}" if "default" in spec else "default: none"
    parser.add_argument(
        flag,
        dest=argument,
        metavar="N",
        type=kind,
        help=f"{help_text or spec['description']} ({kind.describe()}, {default})",
    )


def add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help=(
            "json: compact JSON, as the agent gets it; pretty: indented JSON; text: a "
            "listing for a person (default: text on a terminal, json otherwise)"
        ),
    )


def add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help=(
            "no progress (default: a bar on a terminal, otherwise a line every 10 seconds "
            "on standard error)"
        ),
    )


def add_planning(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--planning-processes",
        metavar="N",
        type=IntRange(0, 8),
        default=None,
        help=(
            "processes that plan backfill batches (read, project, redact) while this one "
            "writes, used while 5,000 or more messages await indexing; 0 plans in this "
            "process (0-8, default: 1 where two or more CPUs are usable, else 0)"
        ),
    )


def add_semantic(parser: argparse.ArgumentParser) -> None:
    """The semantic layer's choice, recorded with the index (`adapters/semantic.py`)."""
    group = parser.add_argument_group("semantic search (off unless chosen here)")
    group.add_argument(
        "--semantic",
        choices=("off", "local", "openai-compatible"),
        default=None,
        help=(
            "search by meaning too: 'local' embeds on this machine (pip install "
            "'chat-recall[semantic]'), 'openai-compatible' sends text to the service named "
            "by --embedding-url, 'off' turns it off and drops the vectors (default: keep "
            "what the index recorded; off when nothing was)"
        ),
    )
    group.add_argument(
        "--embedding-url",
        metavar="URL",
        help=(
            "the service's API root, e.g. http://localhost:11434/v1 (openai-compatible; "
            "default: none)"
        ),
    )
    group.add_argument(
        "--embedding-model",
        metavar="NAME",
        help="the service's model name (openai-compatible; default: none)",
    )
    group.add_argument(
        "--embedding-model-dir",
        metavar="DIR",
        help=(
            "a local model directory instead of the packaged one: model.onnx and "
            "tokenizer.json, or one .safetensors table and tokenizer.json (local; default: the "
            "packaged static table)"
        ),
    )
    group.add_argument(
        "--embedding-api-key-env",
        metavar="VARIABLE",
        help=(
            "the environment variable holding the service's API key, if it needs one "
            "(default: none, no key sent)"
        ),
    )
    group.add_argument(
        "--yes",
        action="store_true",
        help=(
            "agree to the disclosure of where text goes without being asked (scripts; "
            "default: ask on a terminal, refuse otherwise)"
        ),
    )


def command_line(arguments: argparse.Namespace, command: str) -> str:
    """`chat-recall COMMAND` with the scope flags this run was given (`--db`, `--schema`,
    `--app`, `--current-chat`, `--current-message`), shell-quoted, and none that came
    from the environment (which a pasted command has too): the start of a hint one can
    paste."""
    parts = ["chat-recall", command]
    for flag, name, variable in (
        ("--db", "db", DB_VARIABLE),
        ("--schema", "schema", SCHEMA_VARIABLE),
        ("--app", "app", APP_VARIABLE),
        ("--current-chat", "current_chat", None),
        ("--current-message", "current_message", None),
    ):
        value = getattr(arguments, name, None)
        if value is None or (variable and str(value) == _from_environment(variable)):
            continue
        parts += [flag, shlex.quote(str(value))]
    return " ".join(parts)


def add_language(parser: argparse.ArgumentParser) -> None:
    from chat_recall.domain.text.language import Language

    parser.add_argument(
        "--language",
        metavar="NAME",
        choices=[language.value for language in Language],
        default=None,
        help=(
            "the language whose word families search joins, so `Rechnung` finds "
            "`Rechnungen` (german): english (Porter stems), none, or a Snowball language "
            "(needs the snowball extra): "
            + ", ".join(language.value for language in Language if language.snowball)
            + ". Recorded with the index; a change re-indexes in the background "
            "(default: the recorded language, english for a new index)"
        ),
    )


def language(arguments: argparse.Namespace) -> Any:
    """The `--language` given (a `Language`), or None."""
    from chat_recall.domain.text.language import Language

    return None if arguments.language is None else Language(arguments.language)
