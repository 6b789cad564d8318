"""Legibility of non-code text (test logs, tracebacks, listings), measured like code.

The work, its arguments and their help are swevis_dev.legibility_text's (developer tooling beside
these scripts, not part of the swevis package); `--help` prints them.
"""

from swevis_dev.legibility_text import main

if __name__ == "__main__":
    main()
