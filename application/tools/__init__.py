"""The two agent tools and what they share: call context, argument parsing, JSON output."""
