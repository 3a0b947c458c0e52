"""The PostgreSQL adapter: chat-recall inside a host's PostgreSQL database (psycopg 3)."""
