"""The project's developer tooling: what the benchmarks/ scripts and `make measurements` run,
and what the tests of those tools import (tests/dev/). Not part of the swevis package: nothing
under src/swevis, scripts/ or the workflow imports it (tests/test_structure.py), and no wheel
ships it. Its modules import swevis and libraries, never a benchmark script or a test."""
