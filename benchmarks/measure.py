"""`make measurements`: time what changes from run to run and write it as a page.

The figures of a run depend on the machine, its load and the code, so no page states them by
hand: this script measures them and writes docs/measurements-generated.md (--out), the only
place they are stated. It runs, in turn:

- the workflow's default target from nothing: `snakemake --cores N` with the embedded
  config.yaml in an empty folder (what `make results` does in a fresh clone), removed
  afterwards; its wall seconds and CPU seconds (user + system of Snakemake and every job, as
  `time` counts them), and per rule from the jobs' benchmark files (swevis_dev.rule_times,
  which bench_rules.py prints);
- the test suite as `make test` runs it, and the fast lane (`pytest -m "not slow" -n W`):
  wall and CPU seconds and the outcome counts pytest reports (its JUnit XML).

Run it with nothing else on the machine: on a shared machine the wall seconds measure the
other work as much as this. The page names the machine, its load at the start and the commit.
A measurement that fails (a failed job, a failing test) writes no page.

    .venv/bin/python benchmarks/measure.py [--cores 2] [--workers 2] [--out docs/measurements-generated.md] [--dry-run]

--dry-run plans the same work instead of doing it: Snakemake's dry run of the default target
in an empty folder, and pytest's collection of the suite and of the fast lane; it writes nothing.
swevis_dev.measurements does the work; this script reads the arguments and names this checkout.
"""

import argparse
from pathlib import Path

from swevis_dev.measurements import dry_run, measure

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cores", type=int, default=2, help="Snakemake's --cores for the workflow run (make's CORES)")
    ap.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (make's TEST_WORKERS)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "measurements-generated.md", help="the page to write")
    ap.add_argument("--dry-run", action="store_true", help="plan the measurements, write nothing")
    args = ap.parse_args(argv)
    return dry_run(ROOT, args.cores) if args.dry_run else measure(ROOT, args.cores, args.workers, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
