"""The page families on recorded trajectories: prompt-token and cache-aware-bill savings per
hist policy, keep and block, with each family's ceiling.

The work, its arguments and their help are swevis_dev.page_families's (developer tooling beside
these scripts, not part of the swevis package); `--help` prints them.
"""

from swevis_dev.page_families import main

if __name__ == "__main__":
    raise SystemExit(main())
