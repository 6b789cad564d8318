"""Legibility of the pages obs-rN and hist-rN send, read whole by both OCR readers.

The work, its arguments and their help are swevis_dev.page_legibility's (developer tooling beside
these scripts, not part of the swevis package); `--help` prints them.
"""

from swevis_dev.page_legibility import run_script

if __name__ == "__main__":
    raise SystemExit(run_script())
