"""SWE-bench evaluation, by step: evaluate (grade a condition's runs) and validate (an
instance's environment grades its gold patch), each with the backend as a parameter: docker
(the official harness) or local (the same grading here); records and the evaluation cache are
shared by both. `swevis evaluate` (cli) grades one patch with the local runner."""

from swevis.harness.local import apply_patch, evaluate_patch, resolve_log_parser, resolve_test_cmd

__all__ = ["apply_patch", "evaluate_patch", "resolve_log_parser", "resolve_test_cmd"]
