"""CLI start-up benchmark: wall and CPU seconds of `swevis --help`, `swevis --version` and
each subcommand's `--help` (target: the top level under 0.3 s), each the best of --repeat
fresh processes, and the modules each one imports.

    .venv/bin/python benchmarks/bench_cli.py [--repeat 5] [--baseline CHECKOUT]

--baseline times another checkout's src (e.g. an unpacked `git archive` of an earlier
commit) in the same run, with the ratio of the two best wall times.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [["--help"], ["--version"]] + [
    [name, "--help"] for name in ("tasks", "evaluate", "images", "index", "localize", "agent", "replay", "render", "estimate")
]
COUNT = "import sys; from swevis.cli import main; main(sys.argv[1:]); print(len(sys.modules), file=sys.stderr)"


def best_time(argv: list[str], src: Path, repeat: int) -> tuple[float, float, int]:
    """(best wall s, its CPU s, modules loaded) of `swevis argv` in fresh interpreters."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    best = (float("inf"), 0.0, 0)
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", COUNT, *argv], env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        modules = int(done.stderr.strip().splitlines()[-1]) if done.stderr.strip() else 0
        best = min(best, (wall, cpu, modules))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout whose src to time alongside")
    args = parser.parse_args()
    print(f"{'command':<22} {'wall s':>7} {'cpu s':>6} {'modules':>7}" + (f" {'baseline s':>10} {'ratio':>6}" if args.baseline else ""))
    for argv in COMMANDS:
        wall, cpu, modules = best_time(argv, ROOT / "src", args.repeat)
        line = f"{'swevis ' + ' '.join(argv):<22} {wall:>7.3f} {cpu:>6.3f} {modules:>7}"
        if args.baseline:
            base_wall, _, _ = best_time(argv, args.baseline / "src", args.repeat)
            line += f" {base_wall:>10.3f} {base_wall / wall:>5.1f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
