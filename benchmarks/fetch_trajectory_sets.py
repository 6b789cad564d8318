"""Fetch the three public trajectory sets of other agents and models (outside SWE-bench
Verified) that docs/counterfactual.md reads history pages on; they are downloaded, never kept
in the repository.

The work, its arguments and their help are swevis_dev.trajectory_sets's (developer tooling
beside these scripts, not part of the swevis package); `--help` prints them.
"""

from swevis_dev.trajectory_sets import main

if __name__ == "__main__":
    raise SystemExit(main())
