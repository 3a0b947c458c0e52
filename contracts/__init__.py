"""Reusable contract suites (public API, `pip install 'chat-recall[testing]'`): any
storage adapter passes them by subclassing `StorageContracts` (or single suites) and
providing one fixture, `harness`, returning a `StorageHarness`. Pytest does not collect
the `*Contract` classes by themselves. Importing this package needs nothing beyond
chat-recall; the suites themselves need pytest."""
