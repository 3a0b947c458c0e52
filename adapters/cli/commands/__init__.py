"""One module per `chat-recall` command: `arguments(parser)` adds its flags, `run(arguments)`
does the work and returns the exit code. `main` imports only the one being run."""
