"""Tuning the second reader: Tesseract's median accuracy per read setting and font size.

The work, its arguments and their help are swevis_dev.tesseract_reader's (developer tooling beside
these scripts, not part of the swevis package); `--help` prints them.
"""

from swevis_dev.tesseract_reader import main

if __name__ == "__main__":
    main()
