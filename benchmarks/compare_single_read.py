"""Compare the single-read outputs of two results folders (say, before and after a change):
what must be equal and what is compared is swevis_dev.single_read_compare's docstring
(`--help`). Exit 1 on a difference, 2 on a missing folder.

    .venv/bin/python benchmarks/compare_single_read.py OLD_RESULTS NEW_RESULTS [--backbones qwen3.5 kimi-k2.5]
"""

from swevis_dev.single_read_compare import main

if __name__ == "__main__":
    raise SystemExit(main())
