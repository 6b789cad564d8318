"""Compare the single-read outputs of two results folders (say, before and after a change).

Token tables (results/table4.csv, single_read/table4_<backbone>.csv) must be equal cell for
cell; OCR tables (single_read/table4_ocr_<backbone>.csv) equal wherever both measured a cell
(a cell the newer run left 'not sampled' is counted, not compared); frontier.csv equal in every
column but the OCR ones, and in those where both read the same number of pages. Columns only
one side has (a declared new column) are listed. Prints one row per file; exit 1 on a
difference, 2 on a missing folder.

    .venv/bin/python benchmarks/compare_single_read.py OLD_RESULTS NEW_RESULTS [--backbones qwen3.5 kimi-k2.5]
"""

from swevis_dev.single_read_compare import main

if __name__ == "__main__":
    raise SystemExit(main())
