"""DAG benchmark: the workflow's dry run at study scale (target: under 10 s).

Builds a study-scale config in a scratch folder: 100 synthetic SWE-bench-format instances
(the bundled sample's rows under distinct instance ids, over the bundled repositories and
a few base commits each; no network), two live-endpoint model profiles and the embedded
matrix (its agent cells and the ablation's variants; `jobs` in the table counts them). It runs
the sampling checkpoint for real, then times `snakemake -n` (the DAG build only) and its
peak RSS, and prints jobs, seconds, MB and the ratio to the target.

    .venv/bin/python benchmarks/bench_dag.py [--workdir DIR] [--repeat 1] [--baseline CHECKOUT]
        [--profile OUT.prof] [--agent-jobs cell|run]

--agent-jobs run plans one run_agent job per run (the SLURM and Kubernetes profiles' layout)
instead of the embedded config's one job per cell.

--baseline times another checkout (its Snakefile, profile and src; e.g. an unpacked
`git archive` of an earlier commit) in turn with this one on the same DAG, and prints the
ratio of their best CPU times.

--profile runs the dry run once more under cProfile and writes the profile to OUT.prof
(`python -m pstats OUT.prof`, then `sort cumtime`, `stats 40`).

The `floor` row is Snakemake alone on the workflow's own DAG: a generated Snakefile with the
same rules by name, the same jobs and each job's edges to the jobs it reads from (taken from
`snakemake --dag`), one output file a job, no swevis code and no other directive. The `edges`
row is that floor with the workflow's directives: every rule's log, benchmark file and conda
environment, its checkpoints (so that Snakemake plans in two passes, as it does for the
workflow) and the agent rules' resource and params functions. What `this` costs above
`edges` is what swevis's rules and helpers add; `edges` above `floor` is what those
directives cost in Snakemake itself.
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


def study_config(task_file: Path, agent_jobs: str | None = None) -> dict:
    """The embedded config.yaml with the study's task file and two live profiles (and
    agents.jobs set to `agent_jobs`, when given)."""
    config = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text())
    config["tasks"] = {"source": "file", "path": str(task_file), "n": N_INSTANCES}
    if agent_jobs:
        config["agents"]["jobs"] = agent_jobs
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


def prepare(workdir: Path, agent_jobs: str | None = None) -> None:
    """Task file, config and the sampling checkpoint's output (run for real)."""
    workdir.mkdir(parents=True, exist_ok=True)
    task_file = workdir / "tasks.jsonl"
    task_file.write_text("".join(json.dumps(r) + "\n" for r in synthetic_instances(N_INSTANCES)))
    (workdir / "study.yaml").write_text(yaml.safe_dump(study_config(task_file, agent_jobs), sort_keys=False))
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


def dag_shape(workdir: Path) -> dict[str, tuple[str, list[str], bool]]:
    """The workflow's DAG as `snakemake --dag` draws it: each job's rule, the jobs whose
    outputs it reads and whether it is done (drawn dashed: the sampling checkpoint, which
    prepare() ran). Untimed; the floors are made from it."""
    dot = subprocess.run(
        snakemake_cmd(workdir, "--dag"), capture_output=True, text=True, env=_env(), check=True
    ).stdout
    nodes = re.findall(r'^\s*(\d+)\[label = "([^"\\]+)[^\n]*style="([^"]*)"', dot, re.MULTILINE)
    jobs = {n: (rule, [], "dashed" in style) for n, rule, style in nodes}
    for parent, child in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.MULTILINE):
        jobs[child][1].append(parent)
    return jobs


def workflow_checkpoints(root: Path = PROJECT_ROOT) -> list[str]:
    """The names of the workflow's checkpoints (`checkpoint NAME:` in its Snakefile and rules)."""
    texts = [(root / "Snakefile").read_text()] + [p.read_text() for p in sorted((root / "rules").glob("*.smk"))]
    return [name for text in texts for name in re.findall(r"^checkpoint (\w+):", text, re.MULTILINE)]


# The floors: the workflow's own DAG (its rules by name, its jobs, each job's edges to the jobs
# it reads from, the done jobs' outputs present), rebuilt as a Snakefile of no swevis code with
# one output file a job. `floor` has nothing else: what Snakemake alone costs on a DAG of that
# size and shape. `edges` adds the workflow's directives: the log, benchmark file and conda
# environment every swevis rule has; its checkpoints, read by the input functions of the jobs
# that read their outputs, so that Snakemake plans in two passes as it does for the workflow;
# and, on the agent rules (run_condition, run_agent), their resource and their params as
# functions with the same shapes (a run_condition job's runs param lists every run with its
# folder, digest and files). What `this` costs above `edges` is swevis's own.
FLOOR_HEAD = """
import json
JOBS = json.load(open("jobs.json"))
INPUTS = {{n: [f"{{JOBS[p][0]}}/{{p}}.out" for p in parents] for n, (rule, parents, _) in JOBS.items()}}
CHECKPOINTS = {checkpoints}
WAITS = {{n: [p for p in parents if JOBS[p][0] in CHECKPOINTS] for n, (rule, parents, _) in JOBS.items()}}
def inputs(wc):
    for p in WAITS[wc.n]:
        getattr(checkpoints, JOBS[p][0]).get(n=p)
    return INPUTS[wc.n]
wildcard_constraints:
    n=r"\\d+"
rule all:
    input: [f for n, (rule, _, _) in JOBS.items() if rule == "all" for f in INPUTS[n]]
"""
FLOOR_RULE = """
{kind} {rule}:
    input: inputs
    output: "{rule}/{{n}}.out"{directives}
    script: "job.py"
"""
EDGES_HEAD = """
PARAMS = {{"a": 1, "b": [1, 2], "c": {{"d": "e"}}}}
RUNS = [{{"instance": f"i{{i}}", "repeat": 0, "out_dir": f"runs/c/i{{i}}", "digest": f"{{i:016x}}",
    "files": {{"checkout": f"checkout/i{{i}}.json", "index": "index/r.sqlite", "preloc": None, "demos": []}}}}
    for i in range({instances})]
def params_of(wc): return PARAMS
def runs_of(wc): return RUNS
def token_of(wc): return 0
def digest_of(wc): return wc.n
"""
EDGES_DIRECTIVES = """
    log: "logs/{rule}/{{n}}.log"
    benchmark: "bench/{rule}/{{n}}.tsv"
    conda: 'env.yaml'"""
AGENT_DIRECTIVES = """
    resources: llm=1
    params: profile=params_of, agents=params_of, harness=params_of, render=params_of, localize=PARAMS,
        {own}"""
AGENT_OWN_PARAMS = {"run_condition": "runs=runs_of, missing=token_of", "run_agent": "instance=digest_of"}


def floor_snakefile(jobs: dict[str, tuple[str, list[str], bool]], edges: bool) -> str:
    """The Snakefile of the `floor` (edges false) or `edges` row for the DAG `jobs`."""
    checkpoints = set(workflow_checkpoints()) if edges else set()
    text = FLOOR_HEAD.format(checkpoints=sorted(checkpoints))
    text += EDGES_HEAD.format(instances=N_INSTANCES) if edges else ""
    for rule in sorted({rule for rule, _, _ in jobs.values()} - {"all"}):
        directives = EDGES_DIRECTIVES.format(rule=rule) if edges else ""
        if edges and rule in AGENT_OWN_PARAMS:
            directives += AGENT_DIRECTIVES.format(own=AGENT_OWN_PARAMS[rule])
        kind = "checkpoint" if rule in checkpoints else "rule"
        text += FLOOR_RULE.format(kind=kind, rule=rule, directives=directives)
    return text


def floor_dry_run(workdir: Path, jobs: dict[str, tuple[str, list[str], bool]], edges: bool) -> dict:
    """`snakemake -n` of the `floor` or `edges` Snakefile of the DAG `jobs`."""
    floor = workdir / ("floor-edges" if edges else "floor")
    floor.mkdir(exist_ok=True)
    (floor / "Snakefile").write_text(floor_snakefile(jobs, edges))
    (floor / "jobs.json").write_text(json.dumps(jobs))
    (floor / "job.py").write_text("")
    (floor / "env.yaml").write_text("channels: [conda-forge]\ndependencies: [python]\n")
    for n, (rule, _, done) in jobs.items():
        if done:
            (floor / rule).mkdir(exist_ok=True)
            (floor / rule / f"{n}.out").write_text("")
    cmd = [str(SNAKEMAKE), "-n", "--quiet", "rules", "--cores", "1", "-s", str(floor / "Snakefile"), "-d", str(floor)]
    return measured(cmd, floor / "rss.txt")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--profile", type=Path, default=None)
    ap.add_argument("--agent-jobs", choices=["cell", "run"], default=None, help="agents.jobs of the study (default: the embedded config's)")
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout (e.g. /work/main), timed in turn with this one on the same DAG")
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="swevis-bench-dag-"))
    prepare(workdir, args.agent_jobs)
    roots = {"this": PROJECT_ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    runs = {name: [] for name in roots}
    runs["floor"], runs["edges"] = [], []
    jobs = dag_shape(workdir)
    for _ in range(args.repeat):  # interleaved, so a shared machine's load hits all alike
        for name, root in roots.items():
            runs[name].append(dry_run(workdir, root))
        runs["floor"].append(floor_dry_run(workdir, jobs, edges=False))
        runs["edges"].append(floor_dry_run(workdir, jobs, edges=True))
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
    print(f"swevis's share: {best['this'] - best['edges']:.2f} CPU s above Snakemake's own {best['edges']:.2f} s"
          f" (the `edges` row) on the same DAG")
    print(f"this / floor: {best['this'] / best['floor']:.2f}; this / edges (the floor with the workflow's"
          f" directives and checkpoints): {best['this'] / best['edges']:.2f}")
    if args.baseline:
        print(f"baseline / edges: {best['baseline'] / best['edges']:.2f}")
    if args.baseline:
        print(f"speed-up (CPU) baseline / this: {best['baseline'] / best['this']:.2f}x ({workdir})")
    if args.profile:
        dry_run(workdir, prefix=[sys.executable, "-m", "cProfile", "-o", str(args.profile)])
        print(f"profile written to {args.profile}")


if __name__ == "__main__":
    main()
