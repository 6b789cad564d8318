"""SWE-bench evaluation: the local test runner (here) and, later, the official harness in Docker."""

from swevis.harness.local import apply_patch, evaluate_patch, resolve_log_parser, resolve_test_cmd

__all__ = ["apply_patch", "evaluate_patch", "resolve_log_parser", "resolve_test_cmd"]
