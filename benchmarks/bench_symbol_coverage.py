"""Symbol coverage of the index per language: the share of fixes' changed lines inside an
indexed symbol, and of the innermost changed definitions the index names.

The work, its arguments and their help are swevis_dev.symbol_coverage's (developer tooling
beside these scripts, not part of the swevis package); `--help` prints them.
"""

from swevis_dev.symbol_coverage import main

if __name__ == "__main__":
    raise SystemExit(main())
