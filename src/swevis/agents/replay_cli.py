"""`swevis replay TRAJ --conditions text,r1,r3,r5,r7 --model qwen3.5`: the counterfactual cost of
one recorded trajectory (ours or mini-swe-agent's .traj.json) under each representation."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from swevis.agents.cli import model_profile, prepare_instance
from swevis.agents.counterfactual import counterfactual_costs
from swevis.cli import output_folder, read_json_object
from swevis.conditions import conditions_arg
from swevis.config import load_config
from swevis.errors import SwevisError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("traj", help="traj.json (swevis) or .traj.json (mini-swe-agent)")
    parser.add_argument("--conditions", type=conditions_arg, default="text,r1,r3,r5,r7", help="comma-separated: text, r<ratio>")
    parser.add_argument("--model", help="profile whose tokenizer and image family account the cost (default: first)")
    parser.add_argument("--instance", help="instance id (default: read from the trajectory or its file name)")
    parser.add_argument("--scope", default=None, choices=["normal", "wide"])
    parser.add_argument("--config", default="config.yaml")
    parser.add_argument("--cache", default=".swevis-cache")
    parser.add_argument("--json", action="store_true")


def _instance_id(args: argparse.Namespace, data: dict) -> str:
    if args.instance:
        return args.instance
    info = data.get("info")
    iid = data.get("instance_id") or (info.get("instance_id") if isinstance(info, dict) else None)
    if isinstance(iid, str) and iid:
        return iid
    name = Path(args.traj).name
    for suffix in (".traj.json", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    raise SwevisError(f"{args.traj}: cannot tell the instance; pass --instance")


def run(args: argparse.Namespace) -> int:
    data = read_json_object(args.traj, "trajectory")
    output_folder(args.cache, "--cache")
    cfg = load_config(args.config)
    model, profile = model_profile(cfg, args.model, args.config)
    scope = args.scope or data.get("scope", "normal")
    if scope not in ("normal", "wide"):
        raise SwevisError(f"trajectory {args.traj}: its scope {scope!r} is neither normal nor wide; pass --scope")
    row, mirror, co, db = prepare_instance(cfg, _instance_id(args, data), args.cache)
    rows = counterfactual_costs(
        args.traj, [str(c) for c in args.conditions], model_name=model, profile=profile, row=row, mirror=mirror["mirror"],
        index_db=str(db), pristine_dir=co["path"], scope=scope,
        agents_cfg=cfg["agents"], localize_cfg=cfg["localize"], render_cfg=cfg["single_read"].get("render", {}),
    )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"counterfactual cost of {args.traj} ({rows[0]['agent']}, accounted as {model}: "
          f"{profile['tokenizer']} text, {profile['image_family']} images)")
    print(f"{'condition':<10} {'prompt tokens':>14} {'vs text':>8} {'calls':>6} {'pages':>6}  exit")
    for r in rows:
        ratio = f"{r['reduction_vs_text']:.2f}x" if r["reduction_vs_text"] else "-"
        print(f"{r['condition']:<10} {r['prompt_tokens']:>14,} {ratio:>8} {r['calls']:>6} {r['image_pages']:>6}  {r['exit_status']}")
    return 0
