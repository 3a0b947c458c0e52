"""Pure search policies: query construction, ranking, grouping and excerpts."""
