"""`python -m chat_recall`: the command-line interface (same as `chat-recall`)."""

import sys

from chat_recall.adapters.cli.main import main

sys.exit(main())
