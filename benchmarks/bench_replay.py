"""Recorded-mode replay benchmark: N synthetic trajectories x 5 conditions x 2 backbones
(target: 60 x 5 x 2 in 5 minutes on 2 cores).

The trajectories are made from the test fixtures (tests/fixtures/trajectories): each takes a
fixture's format (mini-swe-agent 1.x and 2.x, SWE-agent in turn) and prompt, and a seeded
mix of ~30 calls over the three bundled repositories as a SWE-bench run of a frontier
model looks: code reads of 20-90 lines (sed, nl | sed, cat -n | sed, grep -n -C, awk NR
ranges, whole small files), searches, test runs with their recorded output, edits, and the
submission. Observations are the files' real lines, so every window also matches --repo.

    .venv/bin/python benchmarks/bench_replay.py [-n 60] [--jobs 2] [--models qwen3.5,kimi-k2.5]
        [--workdir DIR]

Prints a table: per backbone, trajectories, calls, windows, wall and CPU seconds per
trajectory (all five conditions); then the wall time against the target, and the CPU time
(what the wall time would be on otherwise idle cores: the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from swevis.counterfactual.replay import recorded_costs
from swevis.config import load_config

PROJECT_ROOT = Path(__file__).resolve().parents[1]

TARGET_S = 300.0
CONDITIONS = ["text", "r1", "r3", "r5", "r7"]
FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "trajectories"
REPOS = PROJECT_ROOT / "src" / "swevis" / "data" / "sample" / "repos"
TEST_OUTPUT = "............F.                                                           [100%]\n" \
              "FAILED tests/test_core.py::test_case - AssertionError: assert 2 == 3\n1 failed, 13 passed in 0.84s\n"


def _sources() -> list[tuple[str, list[str]]]:
    files = sorted(p for p in REPOS.rglob("*.py") if "tests" not in p.parts)
    return [(str(p.relative_to(REPOS / p.relative_to(REPOS).parts[0])), p.read_text().splitlines()) for p in files]


def _read_step(rng: random.Random, path: str, lines: list[str]) -> tuple[str, str]:
    """A code-reading command over a random range of `path`, and what it printed."""
    n = len(lines)
    a = rng.randint(1, max(1, n - 20))
    b = min(n, a + rng.randint(20, 90))
    kind = rng.choice(["sed", "nl", "catn", "grep", "awk", "cat"])
    if kind == "cat" and n > 120:
        kind = "sed"
    if kind == "sed":
        return f"sed -n '{a},{b}p' {path}", "".join(f"{l}\n" for l in lines[a - 1 : b])
    if kind in ("nl", "catn"):
        head = "nl -ba" if kind == "nl" else "cat -n"
        return f"{head} {path} | sed -n '{a},{b}p'", "".join(f"{i:6d}\t{lines[i - 1]}\n" for i in range(a, b + 1))
    if kind == "awk":
        return f"awk 'NR>={a} && NR<={b}' {path}", "".join(f"{l}\n" for l in lines[a - 1 : b])
    if kind == "cat":
        return f"cat {path}", "".join(f"{l}\n" for l in lines)
    c = min(n, a + 8)
    group = "".join(f"{i}{':' if i == a + 4 else '-'}{lines[i - 1]}\n" for i in range(a, c + 1))
    return f"grep -n -C 4 {json.dumps(lines[min(n, a + 4) - 1].strip()[:20] or 'x')} {path}", group


def _calls(rng: random.Random, sources: list[tuple[str, list[str]]], n_calls: int) -> list[tuple[str, str]]:
    calls = []
    for _ in range(n_calls - 1):
        path, lines = rng.choice(sources)
        roll = rng.random()
        if roll < 0.45:
            calls.append(_read_step(rng, path, lines))
        elif roll < 0.65:
            hits = [f"{path}:{i + 1}:{l}" for i, l in enumerate(lines) if "def " in l][:12]
            calls.append((f"grep -rn 'def ' {path.split('/')[0]}", "\n".join(hits) + "\n"))
        elif roll < 0.85:
            calls.append(("python -m pytest -q tests 2>&1 | tail -n 5", TEST_OUTPUT))
        else:
            calls.append((f"sed -i 's/return x/return y/' {path}", ""))
    calls.append(("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff", None))
    return calls


def make_trajectory(k: int, out: Path, sources: list[tuple[str, list[str]]]) -> Path:
    """The k-th synthetic trajectory, in the format of fixture k % 3."""
    rng = random.Random(k)
    calls = _calls(rng, sources, rng.randint(24, 36))
    fmt = ("mini1", "mini2", "swe")[k % 3]
    if fmt == "swe":
        base = json.loads(next(FIXTURES.glob("*.traj")).read_text())
        base["trajectory"] = [{"response": f"Step {i}.\n\n```\n{c}\n```", "thought": f"Step {i}.", "action": c,
                               "observation": o or ""} for i, (c, o) in enumerate(calls)]
        path = out / f"synthetic-{k:03d}.traj"
    else:
        base = json.loads(next(FIXTURES.glob(f"{fmt}__*.traj.json")).read_text())
        block = "bash" if fmt == "mini1" else "mswea_bash_command"
        messages = base["messages"][:2]
        for i, (c, o) in enumerate(calls):
            messages.append({"role": "assistant", "content": f"THOUGHT: step {i}.\n\n```{block}\n{c}\n```"})
            if o is not None:
                messages.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{o}</output>"})
        base["messages"] = messages
        path = out / f"synthetic-{k:03d}.traj.json"
    path.write_text(json.dumps(base))
    return path


def _replay(job: tuple[str, str, dict]) -> dict:
    path, model, profile = job
    started, cpu = time.perf_counter(), time.process_time()
    rows, steps, found = recorded_costs(path, CONDITIONS, model_name=model, profile=profile)
    return {"model": model, "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu, "calls": rows[0]["calls"],
            "windows": found["windows"], "r3_vs_text": next(r["reduction_vs_text"] for r in rows if r["condition"] == "r3")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=60, help="trajectories")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--models", default="qwen3.5,kimi-k2.5", help="profiles of config.yaml (the backbones)")
    parser.add_argument("--workdir", help="where the trajectories are written (default: a temporary folder)")
    args = parser.parse_args()
    cfg = load_config(PROJECT_ROOT / "config.yaml")
    models = args.models.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        out = Path(args.workdir or tmp)
        out.mkdir(parents=True, exist_ok=True)
        sources = _sources()
        paths = [make_trajectory(k, out, sources) for k in range(args.n)]
        jobs = [(str(p), m, cfg["models"][m]) for m in models for p in paths]
        started = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(_replay, jobs, chunksize=1))
        wall = time.perf_counter() - started
    print(f"recorded-mode replay: {args.n} trajectories x {len(CONDITIONS)} conditions x {len(models)} backbones, "
          f"{args.jobs} workers")
    print(f"{'backbone':<12} {'trajectories':>12} {'calls':>7} {'windows':>8} {'s/trajectory':>13} "
          f"{'cpu s/traj':>11} {'r3 vs text':>11}")
    for m in models:
        mine = [r for r in results if r["model"] == m]
        mean = sum(r["seconds"] for r in mine) / len(mine)
        cpu = sum(r["cpu"] for r in mine) / len(mine)
        r3 = sum(r["r3_vs_text"] for r in mine) / len(mine)
        print(f"{m:<12} {len(mine):>12} {sum(r['calls'] for r in mine):>7} {sum(r['windows'] for r in mine):>8} "
              f"{mean:>13.2f} {cpu:>11.2f} {r3:>10.2f}x")
    cpu_total = sum(r["cpu"] for r in results)
    print(f"wall {wall:.1f} s for {len(jobs)} replays (target {TARGET_S:.0f} s: {wall / TARGET_S:.2f} of it); "
          f"CPU {cpu_total:.1f} s, {cpu_total / args.jobs:.1f} s on {args.jobs} free cores")


if __name__ == "__main__":
    main()
