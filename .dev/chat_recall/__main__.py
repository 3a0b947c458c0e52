"""`python -m chat_recall`: the command-line interface (same as `chat-recall`)."""

from chat_recall.adapters.cli.main import program

program()
