"""Reusable contract suites: any storage adapter passes them by subclassing one class and
providing one fixture. Pytest does not collect the `*Contract` classes by themselves."""
