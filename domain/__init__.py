"""The pure domain of chat-recall: values, policies and ports.

Imports only the standard library and attrs (enforced by import-linter).
"""
