"""Estimate the calls, tokens and spend of a planned run before paying for it.

The plan is every cell the workflow runs: the matrix (models x agents.matrix cells x
conditions) and the ablation (swevis.workflow.ablation_cells), over the instances the
workflow would sample (and a matrix cell's probe sets, agents.matrix `probe_sets`), times
agents.repeats. Each cell's expectation per run is the mean of
its past runs under the results dir (their traj.json totals); a cell without history of its
own borrows the same (agent, scope, condition) from another profile's runs (named in the
basis: that profile's tokenizer counted those tokens), then the demonstrations' recorded
turns (calls only: a demonstration records no prompt sizes), else it is reported as having
no basis. Spend is the tokens at the profile's configured prices, cache-aware (the prompt
tokens past runs had served from the endpoint's prefix cache at the cached-input price);
without prices, the mean cost its own runs recorded; else unknown, never 0.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from swevis.arguments import add_config_argument, read_nonempty_text
from swevis.errors import SwevisError

PER_RUN = ("calls", "prompt_tokens", "completion_tokens", "cost")


def planned_cells(config: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(model, agent, scope, condition) of every cell the workflow runs and pays for: the
    matrix under every profile, then the ablation's cells it does not already hold."""
    from swevis.workflow import ablation_cells

    matrix = [
        (model, cell["agent"], cell["scope"], condition)
        for model in config["models"]
        for cell in config["agents"]["matrix"]
        for condition in cell["conditions"]
    ]
    return list(dict.fromkeys(matrix + ablation_cells(config)))


def history(results_dir: str | Path, cell: tuple[str, str, str, str]) -> list[dict[str, Any]]:
    """traj.json totals of every past run of one cell (unreadable files are skipped: this is
    an estimate, not an analysis)."""
    from swevis.analysis.load import condition_traj_paths
    from swevis.paths import ConditionKey, ResultsLayout

    cdir = Path(ResultsLayout(str(results_dir)).condition_dir(ConditionKey(*cell)))
    out = []
    for path in condition_traj_paths(cdir) if cdir.is_dir() else []:
        try:
            totals = json.loads(path.read_text())["totals"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        out.append({k: totals.get(k) for k in (*PER_RUN, "cached_prompt_tokens")})
    return out


def _mean(values: list[Any]) -> float | None:
    values = [float(v) for v in values if v is not None]
    return sum(values) / len(values) if values else None


def borrowed_history(
    results_dir: str | Path, cell: tuple[str, str, str, str], profiles: list[str]
) -> tuple[str | None, list[dict[str, Any]]]:
    """(profile, its runs) of the same (agent, scope, condition) under another profile: the
    config's profiles first, then any other that ran under the results dir; (None, [])
    when none did."""
    from swevis.paths import ResultsLayout

    layout = ResultsLayout(str(results_dir))
    ran = sorted({key.model for key in layout.condition_dirs() if tuple(key[1:]) == tuple(cell[1:])})
    for other in [p for p in profiles if p in ran] + [p for p in ran if p not in profiles]:
        past = history(results_dir, (other, *cell[1:])) if other != cell[0] else []
        if past:
            return other, past
    return None, []


def demo_calls(agent: str, instance_ids: list[str], demos_dir: str | Path | None) -> float | None:
    """Mean recorded turns (one model call each) of the agent's demonstrations of the instances."""
    from swevis.agents.run.demos import DEMOS_DIR, load_demo

    counts = []
    for iid in instance_ids:
        path = Path(demos_dir or DEMOS_DIR) / agent / f"{iid}.yaml"
        if path.exists():
            counts.append(sum(len(turns) for turns in load_demo(path)["turns"].values()))
    return _mean(counts)


def cell_estimate(
    cell: tuple[str, str, str, str],
    profile: dict[str, Any],
    past: list[dict[str, Any]],
    demo_turns: float | None,
    runs: int,
    lender: str | None = None,
) -> dict[str, Any]:
    """Expected per-run and total spend of one cell from its history (`lender`: the other
    profile whose runs `past` are), or else the demonstrations."""
    model, agent, scope, condition = cell
    if past:
        basis = f"history ({len(past)} runs)" if lender is None else (
            f"history of {lender} ({len(past)} runs; tokens as {lender}'s tokenizer counts them)"
        )
        per_run = {k: _mean([p.get(k) for p in past]) for k in ("calls", "prompt_tokens", "completion_tokens",
                                                                 "cached_prompt_tokens")}
    elif demo_turns is not None:
        basis = "demonstrations (calls only)"
        per_run = {"calls": demo_turns, "prompt_tokens": None, "completion_tokens": None}
    else:
        basis = "no history"
        per_run = dict.fromkeys(("calls", "prompt_tokens", "completion_tokens"))
    per_run["cost"] = _cost(profile, per_run, past if lender is None else [])
    row = {"model": model, "agent": agent, "scope": scope, "condition": condition, "runs": runs, "basis": basis}
    for k in PER_RUN:
        row[f"{k}_per_run"] = per_run[k]
        row[f"expected_{k}"] = None if per_run[k] is None else per_run[k] * runs
    return row


def _cost(profile: dict[str, Any], per_run: dict[str, Any], own_past: list[dict[str, Any]]) -> float | None:
    """Tokens at the profile's prices; unpriced, the cost the cell's own runs recorded (a
    borrowed run's cost is another profile's price)."""
    priced = profile.get("cost_per_1k_prompt") or profile.get("cost_per_1k_completion")
    if priced and per_run["prompt_tokens"] is not None:
        from swevis.models.spend import call_cost

        return call_cost(profile, per_run["prompt_tokens"], per_run["completion_tokens"] or 0,
                         round(per_run.get("cached_prompt_tokens") or 0))
    recorded = [p["cost"] for p in own_past if p.get("cost")]
    return _mean(recorded) if recorded else None


def probe_counts(config: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, int]:
    """Instances of each probe set the matrix names (agents.matrix `probe_sets`): as tagged
    in the plan's rows (an instances.jsonl holds them), else as bundled."""
    from collections import Counter

    from swevis.tasks.bundled import load_bundled_set
    from swevis.workflow import matrix_probe_sets

    tagged = Counter(r["probe_set"] for r in rows if r.get("probe_set"))
    return {name: tagged.get(name) or len(load_bundled_set(name, verify_commits=False))
            for name in matrix_probe_sets(config)}


def estimate(config: dict[str, Any], instance_ids: list[str], results_dir: str | Path,
             probes: dict[str, int] | None = None) -> dict[str, Any]:
    """{cells: [per-cell rows], totals, no_history: [cells without history of their own]}.
    `instance_ids` are the study's sample; `probes` ({probe set: instances}) the probe runs a
    matrix cell makes besides them (probe_counts)."""
    from swevis.workflow import cell_probe_sets

    repeats = int(config["agents"]["repeats"])
    runs = len(instance_ids) * repeats
    demos_dir = config["agents"].get("demos_dir")
    profiles = list(config["models"])
    rows = []
    for cell in planned_cells(config):
        past, lender = history(results_dir, cell), None
        if not past:
            lender, past = borrowed_history(results_dir, cell, profiles)
        turns = None if past else demo_calls(cell[1], instance_ids, demos_dir)
        extra = repeats * sum((probes or {}).get(name, 0) for name in cell_probe_sets(config, *cell[1:]))
        row = cell_estimate(cell, config["models"][cell[0]], past, turns, runs + extra, lender)
        row["unknown"] = unknown_reasons(row, config, results_dir)
        rows.append(row)
    totals = {}
    for k in PER_RUN:
        known = [r[f"expected_{k}"] for r in rows if r[f"expected_{k}"] is not None]
        values = [r[f"expected_{k}"] for r in rows]
        totals[f"expected_{k}"] = sum(known) if known else None  # unknown, not 0
        totals[f"cells_without_{k}"] = sum(v is None for v in values)
    no_history = [_cell_name(r) for r in rows if not r["basis"].startswith("history (")]
    return {"instances": len(instance_ids), "runs_per_cell": runs, "cells": rows, "totals": totals, "no_history": no_history}


def unknown_reasons(row: dict[str, Any], config: dict[str, Any], results_dir: str | Path) -> dict[str, str]:
    """{column: why it is unknown and what would make it known} for each unknown column of
    a cell's row (calls, prompt tokens, spend)."""
    from swevis.models import is_live

    model = row["model"]
    profile = config["models"][model]
    runs = f"{Path(results_dir) / 'runs' / model / (row['agent'] + '-' + row['scope']) / row['condition']}"
    playback = next((name for name, p in config["models"].items() if not is_live(p)), None)
    if not is_live(profile):
        measure = f"a demonstration run of this cell (offline, profile {model} plays back the demonstrations) measures them"
    elif playback is not None:
        measure = (f"a demonstration run of this cell under the playback profile {playback} (offline) gives them, "
                   f"counted with {playback}'s tokenizer")
    else:
        measure = "a demonstration run gives them: add a profile with backend playback and run this cell under it"
    why: dict[str, str] = {}
    if row["expected_calls"] is None:
        why["calls"] = (f"no past runs of {model} under {runs} and no demonstration of {row['agent']} for these "
                        f"instances; past runs of this profile give them")
    if row["expected_prompt_tokens"] is None:
        recorded = "demonstrations record turns, not prompt sizes" if row["expected_calls"] is not None else "nothing recorded"
        why["prompt_tokens"] = f"no past runs of {model} under {runs} ({recorded}); {measure}"
    if row["expected_cost"] is None:
        priced = profile.get("cost_per_1k_prompt") or profile.get("cost_per_1k_completion")
        if priced:
            why["cost"] = "follows the prompt tokens (the profile's prices are set)"
        else:
            pays = "plays back recorded turns and pays nothing" if not is_live(profile) else "recorded no cost in past runs"
            why["cost"] = (f"models.{model} sets no prices (cost_per_1k_prompt, cost_per_1k_completion) and {pays}; "
                           "its prices give the spend of its tokens")
    return why


def _cell_name(row: dict[str, Any]) -> str:
    return f"{row['model']}/{row['agent']}-{row['scope']}/{row['condition']}"


def _fmt(x: float | None, nd: int = 0) -> str:
    return "unknown" if x is None else f"{x:,.{nd}f}"


def render(report: dict[str, Any]) -> str:
    """The estimate as a plain-text table with a totals line."""
    head = f"{'cell':<34} {'runs':>5} {'calls':>9} {'prompt tokens':>15} {'spend':>10}  basis"
    lines = [f"{report['instances']} instances, {report['runs_per_cell']} runs per cell", head]
    for r in report["cells"]:
        lines.append(
            f"{_cell_name(r):<34} {r['runs']:>5} {_fmt(r['expected_calls']):>9} {_fmt(r['expected_prompt_tokens']):>15} "
            f"{_fmt(r['expected_cost'], 2):>10}  {r['basis']}"
        )
        names = {"calls": "calls", "prompt_tokens": "prompt tokens", "cost": "spend"}
        lines += [f"    {names[k]} unknown: {why}" for k, why in r.get("unknown", {}).items()]
    t = report["totals"]
    lines.append(
        f"{'total':<34} {'':>5} {_fmt(t['expected_calls']):>9} {_fmt(t['expected_prompt_tokens']):>15} "
        f"{_fmt(t['expected_cost'], 2):>10}  ({t['cells_without_prompt_tokens']} cell(s) without tokens, "
        f"{t['cells_without_cost']} without spend: totals leave them out)"
    )
    if report["no_history"]:
        lines.append("no history of their own (no past runs of their profile under the results dir): " + ", ".join(report["no_history"]))
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser, " of the planned run")
    parser.add_argument("--results", default=None, help="where past runs live (default: the config's results_dir)")
    parser.add_argument("--instances", default=None, help="instances.jsonl of the plan (default: what the config samples)")
    parser.add_argument("--json", action="store_true", help="print the estimate as JSON")


def run(args: argparse.Namespace) -> int:
    from swevis.config import load_user_config
    from swevis.tasks import load_instances
    from swevis.workflow import check_study
    from swevis.tasks.sources import select_instances

    if args.results is not None and not Path(args.results).is_dir():
        raise SwevisError(f"results folder {args.results} is not a folder (past runs are read from it)")
    config, config_name = load_user_config(args.config)
    check_study(config)  # what the workflow refuses while planning, refused here with its message
    if args.instances:
        read_nonempty_text(args.instances, "instances file")  # a binary or empty file is refused by name
    rows = load_instances(args.instances) if args.instances else select_instances(config["tasks"])
    study = [r for r in rows if not r.get("probe_set")]
    if not study:
        raise SwevisError(f"{args.instances or config_name}: the plan has no instances")
    report = estimate(config, [r["instance_id"] for r in study], args.results or config["results_dir"],
                      probes=probe_counts(config, rows))
    print(json.dumps(report, indent=1) if args.json else render(report))
    return 0
