"""The project's developer tooling: what the benchmarks/ scripts and `make measurements` run,
and what the tests of those tools import. Not part of the swevis package: nothing under
src/swevis, scripts/ or the workflow imports it, and no wheel ships it. Each module imports
swevis and the standard library only, never a benchmark script or a test."""
