"""SWE-bench evaluation, by step: evaluate (grade a condition's runs) and validate (an
instance's environment grades its gold patch), each with the backend as a parameter: docker
(the official harness) or local (the same grading here); records and the evaluation cache are
shared by both. `swevis evaluate` (cli) grades one patch with the local runner.

Nothing is imported here: a job that only reads records (a condition's summary) would
otherwise start mini-swe-agent's environments and the Docker SDK with this package.
"""
