"""DAG benchmark: the workflow's dry run at study scale (target: under 10 s).

Builds a study-scale config in a scratch folder: 100 synthetic SWE-bench-format instances
(the bundled sample's rows under distinct instance ids, over the bundled repositories and
a few base commits each; no network), two live-endpoint model profiles and the embedded
matrix (2 models x 21 cells + 4 LET variants x 2 ablation conditions = 50 cells). It runs
the sampling checkpoint for real, then times `snakemake -n` (the DAG build only) and its
peak RSS, and prints jobs, seconds, MB and the ratio to the target.

    .venv/bin/python benchmarks/bench_dag.py [--workdir DIR] [--repeat 1] [--baseline CHECKOUT]
        [--profile OUT.prof]

--baseline times another checkout (its Snakefile, profile and src; e.g. an unpacked
`git archive` of an earlier commit) in turn with this one on the same DAG, and prints the
ratio of their best CPU times.

--profile runs the dry run once more under cProfile and writes the profile to OUT.prof
(`python -m pstats OUT.prof`, then `sort cumtime`, `stats 40`).

The `floor` row is Snakemake alone on a DAG of the same size: a generated Snakefile with as
many jobs (one run job per instance x cell, each with three inputs from per-instance jobs,
one summary per cell), no checkpoint, no input functions, no swevis code. What `this` costs
above it is what swevis's rules and helpers add; the floor is what no change to them removes.
The `edges` row is that floor with run_agent's inputs, log, benchmark and params (three input
functions, five param functions, still no swevis code): what the run jobs' directives cost in
Snakemake itself.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[1]

TARGET_S = 10.0
N_INSTANCES = 100
SAMPLE_DIR = PROJECT_ROOT / "src" / "swevis" / "data" / "sample" / "instances"
FILES = {"patch": "patch.diff", "test_patch": "test_patch.diff", "problem_statement": "problem_statement.md"}
SNAKEMAKE = PROJECT_ROOT / ".venv" / "bin" / "snakemake"


def synthetic_instances(n: int) -> list[dict]:
    """`n` rows in the SWE-bench schema: the bundled ones under new ids, four commits a repo
    (so the index and mirror rules see a study's repo@commit fan-out)."""
    base = [json.loads((d / "meta.json").read_text()) for d in sorted(SAMPLE_DIR.iterdir())]
    rows = []
    for i in range(n):
        row = dict(base[i % len(base)])
        for name, file in FILES.items():
            row[name] = (SAMPLE_DIR / row["instance_id"] / file).read_text()
        owner, repo = row["repo"].split("/")
        row["instance_id"] = f"{owner}__{repo}-{1000 + i}"
        row["base_commit"] = hashlib.sha1(f"{row['repo']}@{i % 4}".encode()).hexdigest()
        rows.append(row)
    return rows


def study_config(task_file: Path) -> dict:
    """The embedded config.yaml with the study's task file and two live profiles."""
    config = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text())
    config["tasks"] = {"source": "file", "path": str(task_file), "n": N_INSTANCES}
    for name, profile in config["models"].items():
        config["models"][name] = {
            "backend": "openai",
            "base_url": "http://localhost:8000/v1",
            "model_id": profile["model_id"],
            "api_key_env": "BENCH_DAG_KEY",
            "tokenizer": profile["tokenizer"],
            "image_family": profile["image_family"],
        }
    config["agents"]["environment"] = "docker"
    config["harness"]["kind"] = "docker"
    return config


def snakemake_cmd(workdir: Path, *args: str, root: Path = PROJECT_ROOT) -> list[str]:
    """The workflow of checkout `root` (its Snakefile and profile) run in `workdir`."""
    return [
        str(SNAKEMAKE),
        *args,
        "-s", str(root / "Snakefile"),
        "-d", str(workdir),
        "--workflow-profile", str(root / "profiles" / "default"),
        "--configfile", str(workdir / "study.yaml"),
    ]


def prepare(workdir: Path) -> None:
    """Task file, config and the sampling checkpoint's output (run for real)."""
    workdir.mkdir(parents=True, exist_ok=True)
    task_file = workdir / "tasks.jsonl"
    task_file.write_text("".join(json.dumps(r) + "\n" for r in synthetic_instances(N_INSTANCES)))
    (workdir / "study.yaml").write_text(yaml.safe_dump(study_config(task_file), sort_keys=False))
    subprocess.run(snakemake_cmd(workdir, "sample_instances", "--forcerun", "sample_instances", "--cores", "1", "--quiet", "all"), check=True, env=_env())


def _env(root: Path = PROJECT_ROOT) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root / "src")
    return env


def dry_run(workdir: Path, root: Path = PROJECT_ROOT, prefix: list[str] | None = None) -> dict:
    """One `snakemake -n` of checkout `root` on the study in `workdir`."""
    cmd = (prefix or []) + snakemake_cmd(workdir, "-n", "--quiet", "rules", root=root)
    return measured(cmd, workdir / "rss.txt", _env(root))


def measured(cmd: list[str], rss_file: Path, env: dict | None = None) -> dict:
    """Run a dry run in a child process, under /usr/bin/time: wall seconds, CPU seconds
    (user + system: what a shared, loaded machine distorts least), peak MB, job count."""
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", str(rss_file), *cmd], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t0
    if proc.returncode:
        sys.exit(f"dry run failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    total = re.search(r"^total\s+(\d+)", proc.stdout + proc.stderr, re.MULTILINE)
    user, system, rss_kb = rss_file.read_text().split()[-3:]
    return {
        "jobs": int(total.group(1)) if total else None,
        "seconds": seconds,
        "cpu_s": float(user) + float(system),
        "peak_mb": int(rss_kb) / 1024,
    }


FLOOR_REST = """
IDS = [f"i{{i}}" for i in range({instances})]
rule all:
    input: expand("sum/c{{c}}.txt", c=range({cells}))
rule summary:
    input: expand("runs/c{{{{c}}}}/{{i}}.txt", i=IDS)
    output: "sum/c{{c}}.txt"
    log: "logs/c{{c}}.log"
    script: "job.py"
rule checkout:
    output: "checkout/{{i}}.txt"
    script: "job.py"
rule mirror:
    output: "mirror/{{i}}.txt"
    script: "job.py"
rule index:
    output: "index/{{i}}.txt"
    script: "job.py"
"""
FLOOR_RUN = """
rule run:
    input: "checkout/{{i}}.txt", "mirror/{{i}}.txt", "index/{{i}}.txt"
    output: "runs/c{{c}}/{{i}}.txt"
    log: "logs/c{{c}}/{{i}}.log"
    resources: llm=1
    params: cell=lambda wc: wc.c
    script: "job.py"
"""
FLOOR_SNAKEFILE = FLOOR_REST + FLOOR_RUN
# The floor with run_agent's edges and directives: a shared ancient() input, the checkout, three
# input functions (index; pre-localization or nothing; demos, nothing), a log and a benchmark
# file, six params of which five are functions, as in rules/agents.smk. Still no swevis code:
# what `this` costs above it is swevis's own; what it costs above `floor`, those directives'.
FLOOR_SAME_EDGES = FLOOR_REST + """
PARAMS = {{"a": 1, "b": [1, 2], "c": {{"d": "e"}}}}
def index_of(wc): return f"index/{{wc.i}}.txt"
def preloc_of(wc): return f"mirror/{{wc.i}}.txt" if int(wc.c) % 3 == 0 else []
def nothing(wc): return []
def params_of(wc): return PARAMS
def digest_of(wc): return wc.i
rule run:
    input:
        instances=ancient("instances.jsonl"),
        checkout="checkout/{{i}}.txt",
        index=index_of,
        preloc=preloc_of,
        demos=nothing,
    output: "runs/c{{c}}/{{i}}.txt"
    log: "logs/c{{c}}/{{i}}.log"
    benchmark: "bench/c{{c}}/{{i}}.tsv"
    resources: llm=1
    params: profile=params_of, agents=params_of, harness=params_of, render=params_of, localize=PARAMS,
        instance=digest_of
    script: "job.py"
"""


def floor_dry_run(workdir: Path, jobs: int, name: str = "floor", snakefile: str = FLOOR_SNAKEFILE) -> dict:
    """`snakemake -n` of a floor Snakefile sized to about `jobs` jobs."""
    floor = workdir / name
    floor.mkdir(exist_ok=True)
    cells = max(1, round((jobs - 1 - 3 * N_INSTANCES) / (N_INSTANCES + 1)))
    (floor / "Snakefile").write_text(snakefile.format(instances=N_INSTANCES, cells=cells))
    (floor / "job.py").write_text("")
    (floor / "instances.jsonl").write_text("")
    cmd = [str(SNAKEMAKE), "-n", "--quiet", "rules", "--cores", "1", "-s", str(floor / "Snakefile"), "-d", str(floor)]
    return measured(cmd, floor / "rss.txt")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--profile", type=Path, default=None)
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout (e.g. /work/main), timed in turn with this one on the same DAG")
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="swevis-bench-dag-"))
    prepare(workdir)
    roots = {"this": PROJECT_ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    runs = {name: [] for name in roots}
    runs["floor"], runs["edges"] = [], []
    for _ in range(args.repeat):  # interleaved, so a shared machine's load hits all alike
        for name, root in roots.items():
            runs[name].append(dry_run(workdir, root))
        runs["floor"].append(floor_dry_run(workdir, runs["this"][-1]["jobs"]))
        runs["edges"].append(floor_dry_run(workdir, runs["this"][-1]["jobs"], "floor-edges", FLOOR_SAME_EDGES))
    print(f"{'checkout':<9} {'jobs':>6} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'CPU / 10 s':>10}")
    best = {}
    for name, rs in runs.items():
        for r in rs:
            print(
                f"{name:<9} {r['jobs']:>6} {r['seconds']:>8.2f} {r['cpu_s']:>8.2f} {r['peak_mb']:>8.0f}"
                f" {r['cpu_s'] / TARGET_S:>10.2f}"
            )
        best[name] = min(r["cpu_s"] for r in rs)
        print(f"{name:<9} best {best[name]:.2f} CPU s = {best[name] / TARGET_S:.2f} x the {TARGET_S:g} s target")
    print(f"swevis's share: {best['this'] - best['floor']:.2f} CPU s above Snakemake's own {best['floor']:.2f} s"
          f" ({best['floor'] / TARGET_S:.2f} x the target) on a DAG of the same size")
    print(f"this / floor: {best['this'] / best['floor']:.2f}; this / edges (the floor with run_agent's edges"
          f" and directives): {best['this'] / best['edges']:.2f}")
    if args.baseline:
        print(f"speed-up (CPU) baseline / this: {best['baseline'] / best['this']:.2f}x ({workdir})")
    if args.profile:
        dry_run(workdir, prefix=[sys.executable, "-m", "cProfile", "-o", str(args.profile)])
        print(f"profile written to {args.profile}")


if __name__ == "__main__":
    main()
