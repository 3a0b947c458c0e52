"""The `chat-recall` command line."""
