"""Legibility at small sizes, per font and way of drawing: OCR accuracy of whole pages at send
resolution, and the guards they justify (`--write-guards`).

The work, its arguments and their help are swevis_dev.legibility's (developer tooling beside
these scripts, not part of the swevis package); `--help` prints them.
"""

from swevis_dev.legibility import main

if __name__ == "__main__":
    main()
