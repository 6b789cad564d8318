"""Where one run_agent job's CPU goes: Python start-up, Snakemake's script preamble, the
imports of scripts/run_agent.py, the tokenizer load, and the run itself (in the job's own
process, and in the tool calls' child processes).

Builds (or reuses) a small results folder with the project's config.yaml cut to two bundled
instances, runs the default target's run_agent jobs of five conditions (text, visual,
Prometheus; JOBS) once through Snakemake with --skip-script-cleanup, and then runs each job's
generated script again --repeat times, each in a fresh interpreter as Snakemake does,
timing the phases from inside it (time.process_time, the process's CPU since it started).
Prints the median CPU seconds of each phase per job, with the sum over the jobs.

    .venv/bin/python benchmarks/bench_run_agent.py [--workdir DIR] [--repeat 3]
        [--baseline SRC] [--profile LABEL]

The jobs run with the environment the Snakefile gives every job (WORKFLOW_ENV: one BLAS
thread). --baseline times another checkout's src folder (e.g. `git archive main src | tar -x
-C DIR`, then DIR/src) in the same run, with this environment unless --baseline-env-unset
(the workflow before it set one), and prints the ratio of the totals. --profile LABEL prints
a cProfile of that job's whole script instead of the table.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ["swevis-samples__ledgerkit-117", "swevis-samples__tabulon-305"]
# label -> (agent-scope, condition): default-target cells (config.yaml agents.matrix)
JOBS = {
    "plb text": ("plb-normal", "text"),
    "plb r3": ("plb-normal", "r3"),
    "let r5": ("let-normal", "r5"),
    "prometheus text": ("prometheus-normal", "text"),
    "prometheus r3": ("prometheus-normal", "r3"),
}
MODEL = "qwen3.5"
# what the Snakefile sets for every job (os.environ.setdefault there)
WORKFLOW_ENV = {"OPENBLAS_NUM_THREADS": "1"}
PHASES = ("start", "preamble", "imports", "tokenizer", "work", "children", "total")

# Runs inside the job's fresh interpreter: argv[1] is Snakemake's generated script.
DRIVER = r"""
import time; _t = [time.process_time()]
import ast, json, resource, sys
_path = sys.argv[1]
_lines = open(_path).read().split("\n")
_end = next(i for i, l in enumerate(_lines) if l.startswith("######## snakemake preamble end"))
_g = {"__name__": "__main__", "__file__": _path}
exec(compile("\n".join(_lines[:_end]), _path, "exec"), _g); _t.append(time.process_time())
_body = ast.parse("\n".join(_lines[_end + 1:]))
_imports = [n for n in _body.body if isinstance(n, (ast.Import, ast.ImportFrom))]
_rest = [n for n in _body.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
exec(compile(ast.Module(_imports, []), _path, "exec"), _g); _t.append(time.process_time())
from swevis.tokens import text_tokens
text_tokens("x", _g["snakemake"].params.profile["tokenizer"]); _t.append(time.process_time())
exec(compile(ast.Module(_rest, []), _path, "exec"), _g); _t.append(time.process_time())
_c = resource.getrusage(resource.RUSAGE_CHILDREN)
_d = [b - a for a, b in zip([0.0] + _t, _t)]
print("BENCH " + json.dumps(dict(zip(["start", "preamble", "imports", "tokenizer", "work"], _d),
                                 children=_c.ru_utime + _c.ru_stime)))
"""


def _targets() -> list[str]:
    return [f"results/runs/{MODEL}/{cell}/{cond}/{inst}/traj.json"
            for cell, cond in JOBS.values() for inst in INSTANCES]


def prepare(workdir: Path) -> None:
    """The results folder with the jobs' inputs, and each job's generated script kept."""
    config = (ROOT / "config.yaml").read_text()
    cut = re.sub(r"(?m)^  n: null.*$", f"  n: null\n  instance_ids: [{', '.join(INSTANCES)}]", config)
    (workdir / "config.yaml").write_text(cut)
    cmd = [str(Path(sys.executable).parent / "snakemake"), "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(workdir), "--cores", "2", "--skip-script-cleanup", "--rerun-incomplete", *_targets(),
           "--forcerun", "run_agent"]  # last: --forcerun takes every argument after it
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"snakemake failed: {done.stderr[-2000:]}")


def scripts(workdir: Path) -> dict[str, list[Path]]:
    """label -> the newest generated run_agent script of each instance."""
    found: dict[str, list[Path]] = {}
    newest = sorted((workdir / ".snakemake" / "scripts").glob("*.run_agent.py"), key=lambda p: p.stat().st_mtime)
    for label, (cell, cond) in JOBS.items():
        out = f"results/runs/{MODEL}/{cell}/{cond}/".encode()
        mine = {}
        for path in newest:
            head = path.read_bytes()[:40000]
            for inst in INSTANCES:
                if out + inst.encode() + b"/traj.json" in head:
                    mine[inst] = path
        found[label] = [mine[i] for i in INSTANCES if i in mine]
    return found


def run_once(script: Path, workdir: Path, src: Path | None, workflow_env: bool) -> dict[str, float]:
    """Phase CPU seconds of one fresh run of `script` (src: PYTHONPATH, ahead of the install;
    workflow_env: with WORKFLOW_ENV)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and k not in WORKFLOW_ENV}
    env.update(WORKFLOW_ENV if workflow_env else {})
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run([sys.executable, "-c", DRIVER, str(script)], cwd=workdir, env=env,
                          capture_output=True, text=True, check=False)
    line = next((l for l in done.stdout.splitlines() if l.startswith("BENCH ")), None)
    if done.returncode or line is None:
        raise SystemExit(f"{script.name} failed: {done.stderr[-2000:]}")
    phases = json.loads(line[6:])
    phases["total"] = sum(phases.values())
    return phases


def measure(found: dict[str, list[Path]], workdir: Path, src: Path | None, repeat: int,
            workflow_env: bool = True) -> dict[str, dict]:
    """label -> median phase seconds per job (median over repeats, mean over instances)."""
    table = {}
    for label, paths in found.items():
        per_inst = []
        for path in paths:
            runs = [run_once(path, workdir, src, workflow_env) for _ in range(repeat)]
            per_inst.append({k: statistics.median(r[k] for r in runs) for k in PHASES})
        table[label] = {k: statistics.mean(r[k] for r in per_inst) for k in PHASES}
    return table


def print_table(title: str, table: dict[str, dict]) -> None:
    print(f"\n{title}: CPU s per job (median of repeats, mean of {len(INSTANCES)} instances)\n")
    print("| job | " + " | ".join(PHASES) + " |")
    print("|---|" + "---:|" * len(PHASES))
    for label, row in table.items():
        print(f"| {label} | " + " | ".join(f"{row[k]:.3f}" for k in PHASES) + " |")
    print("| mean | " + " | ".join(f"{statistics.mean(r[k] for r in table.values()):.3f}" for k in PHASES) + " |")


def profile(script: Path, workdir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | WORKFLOW_ENV
    subprocess.run([sys.executable, "-m", "cProfile", "-s", "cumulative", str(script)], cwd=workdir, env=env,
                   check=False, stdout=sys.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, help="results folder to build or reuse (default: a temporary one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", type=Path, help="another checkout's src folder, timed in the same run")
    ap.add_argument("--baseline-env-unset", action="store_true", help="run the baseline without WORKFLOW_ENV")
    ap.add_argument("--profile", choices=sorted(JOBS), help="print a cProfile of this job instead")
    args = ap.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-run-agent-"))
    workdir.mkdir(parents=True, exist_ok=True)
    found = scripts(workdir)
    if not all(len(p) == len(INSTANCES) for p in found.values()):
        prepare(workdir)
        found = scripts(workdir)
    if args.profile:
        profile(found[args.profile][0], workdir)
        return 0
    table = measure(found, workdir, None, args.repeat)
    print_table(f"this checkout ({' '.join(f'{k}={v}' for k, v in WORKFLOW_ENV.items())})", table)
    if args.baseline:
        base = measure(found, workdir, args.baseline.resolve(), args.repeat, not args.baseline_env_unset)
        print_table(f"baseline {args.baseline}{' (no WORKFLOW_ENV)' if args.baseline_env_unset else ''}", base)
        print("\n| job | baseline total | this total | ratio |\n|---|---:|---:|---:|")
        for label in table:
            b, t = base[label]["total"], table[label]["total"]
            print(f"| {label} | {b:.3f} | {t:.3f} | {t / b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
