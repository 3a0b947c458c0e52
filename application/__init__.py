"""Application services: the use cases a host embeds (indexing, search_chats, read_chat)."""
