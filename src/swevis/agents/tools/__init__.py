"""The tools an agent calls in its text action format: one record per tool, beside its handler."""
