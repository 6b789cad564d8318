"""Compare the single-read outputs of two results folders (say, before and after a change);
benchmarks/compare_single_read.py prints it.

Token tables (results/table4.csv, single_read/table4_<backbone>.csv) must be equal cell for
cell; OCR tables (single_read/table4_ocr_<backbone>.csv) equal wherever both measured a cell
(a cell the newer run left 'not sampled' is counted, not compared); frontier.csv equal in every
column but the OCR ones, and in those where both read the same number of pages. Columns only
one side has (a declared new column) are listed. Prints one row per file; exit 1 on a
difference, 2 on a missing folder.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

NOT_SAMPLED = "not sampled"
OCR_COLUMNS = ("ocr_", "rapidocr_", "tesseract_")  # a frontier row's OCR columns: both readers' and each one's


def _rows(path: Path) -> list[dict]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def compare_tokens(old: list[dict], new: list[dict]) -> tuple[int, list[str], set[str]]:
    """(cells compared, differences, columns only one side has)."""
    shared = [k for k in (old[0] if old else {}) if k in (new[0] if new else {}) and k != "swevis_version"]
    diffs, n = [], 0
    if len(old) != len(new):
        diffs.append(f"{len(old)} rows against {len(new)}")
    for a, b in zip(old, new):
        for k in shared:
            n += 1
            if a[k] != b[k]:
                diffs.append(f"Lines {a.get('Lines', '?')} {k}: {a[k]!r} != {b[k]!r}")
    only = set(old[0] if old else {}) ^ set(new[0] if new else {})
    return n, diffs, only


def compare_ocr(old: list[dict], new: list[dict]) -> tuple[int, int, list[str], set[str]]:
    """(cells compared, cells the new run left 'not sampled', differences, one-sided columns)."""
    shared = [k for k in (old[0] if old else {}) if k in (new[0] if new else {}) and k.startswith("r")]
    diffs, n, skipped = [], 0, 0
    for a, b in zip(old, new):
        for k in shared:
            if b[k] == NOT_SAMPLED:
                skipped += 1
                continue
            n += 1
            if a[k] != b[k]:
                diffs.append(f"Lines {a['Lines']} {k}: {a[k]!r} != {b[k]!r}")
    return n, skipped, diffs, set(old[0] if old else {}) ^ set(new[0] if new else {})


def compare_frontier(old: list[dict], new: list[dict]) -> tuple[int, list[str], set[str]]:
    diffs, n = [], 0
    shared = [k for k in (old[0] if old else {}) if k in (new[0] if new else {}) and k != "swevis_version"]
    for a, b in zip(old, new):
        same_pages = a.get("ocr_n") == b.get("ocr_n")
        for k in shared:
            if k.startswith(OCR_COLUMNS) and k not in ("ocr_protocol",) and not same_pages:
                continue
            n += 1
            if a[k] != b[k]:
                diffs.append(f"{a['backbone']} f={a['font_px']} {k}: {a[k]!r} != {b[k]!r}")
    return n, diffs, set(old[0] if old else {}) ^ set(new[0] if new else {})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--backbones", nargs="+", default=["qwen3.5", "kimi-k2.5"])
    args = ap.parse_args(argv)
    old, new = Path(args.old), Path(args.new)
    for d in (old, new):
        if not (d / "single_read").is_dir():
            print(f"compare_single_read: {d} has no single_read/ folder", file=sys.stderr)
            return 2
    print("| file | cells compared | not sampled (new) | differences | columns on one side only |")
    print("|---|---:|---:|---:|---|")
    failed = False
    files = ["table4.csv"] + [f"single_read/table4_{b}.csv" for b in args.backbones]
    for f in files:
        n, diffs, only = compare_tokens(_rows(old / f), _rows(new / f))
        failed |= bool(diffs)
        print(f"| {f} | {n} | 0 | {len(diffs)} | {', '.join(sorted(only)) or '-'} |")
        for d in diffs[:5]:
            print(f"|   {d} | | | | |")
    for b in args.backbones:
        f = f"single_read/table4_ocr_{b}.csv"
        n, skipped, diffs, only = compare_ocr(_rows(old / f), _rows(new / f))
        failed |= bool(diffs)
        print(f"| {f} | {n} | {skipped} | {len(diffs)} | {', '.join(sorted(only)) or '-'} |")
    n, diffs, only = compare_frontier(_rows(old / "single_read/frontier.csv"), _rows(new / "single_read/frontier.csv"))
    failed |= bool(diffs)
    print(f"| single_read/frontier.csv | {n} | - | {len(diffs)} | {', '.join(sorted(only)) or '-'} |")
    for d in diffs[:5]:
        print(f"|   {d} | | | | |")
    return 1 if failed else 0

