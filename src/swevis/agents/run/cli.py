"""Run one agent on one instance by hand (playback or live).

    swevis agent run --agent plb --instance ID --condition r3 [--model qwen3.5] [--demo FILE] -o DIR

--agent is a registered agent (mini, plb, let, prometheus and config `agents.modules`'; see
swevis.agents.registry) or a configured variant of one (agents.variants: let-mem, ...;
agents.prometheus.ablations: prometheus-nomem, ...).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from swevis.arguments import add_config_argument, output_folder, require_file
from swevis.conditions import condition_arg
from swevis.errors import SwevisError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["run"], help="run: one trajectory")
    parser.add_argument("--agent", required=True, help="a registered agent (mini, plb, let, prometheus, ...) or a configured variant (let-mem, prometheus-nomem, ...)")
    parser.add_argument("--instance", required=True)
    parser.add_argument("--condition", type=condition_arg, default="text", help="text or r<ratio> (r1, r3, r2.5)")
    parser.add_argument("--scope", default="normal", choices=["normal", "wide"])
    parser.add_argument("--model", help="model profile (default: the first in config)")
    parser.add_argument("--demo", help="play back this demonstration or trajectory (default: the bundled demo)")
    add_config_argument(parser)
    parser.add_argument("--cache", default=".swevis-cache", help="mirrors, checkouts and indexes for hand runs")
    parser.add_argument("-o", "--out", required=True, help="folder for traj.json and patch.diff")


def model_profile(cfg: dict, name: str | None, config_path: str) -> tuple[str, dict]:
    model = name or next(iter(cfg["models"]))
    if model not in cfg["models"]:
        raise SwevisError(f"no model profile {model!r} in {config_path}")
    return model, cfg["models"][model]


def prepare_instance(cfg: dict, instance_id: str, cache_dir: str, *, index: bool = True):
    """(row, mirror manifest, checkout manifest, index path or None) of one instance, in a
    cache folder; `index=False` skips the index (an agent that reads none, as mini)."""
    from swevis.index import build_index
    from swevis.paths import repo_slug
    from swevis.tasks.repos import checkout_instance, ensure_mirror
    from swevis.tasks.sources import open_source, probe_instances

    rows = open_source(cfg["tasks"]).load()
    # and the probe sets the matrix names (agents.matrix probe_sets), as the sampling checkpoint adds them
    probe_sets = sorted({name for cell in cfg["agents"]["matrix"] for name in cell.get("probe_sets") or []})
    rows += probe_instances(probe_sets, rows)
    row = next((r for r in rows if r["instance_id"] == instance_id), None)
    if row is None:
        raise SwevisError(f"unknown instance id {instance_id}: not in the configured task source nor its probe sets")
    cache = Path(cache_dir)
    mirror = ensure_mirror(row["repo"], cache / "mirrors", commits=[row["base_commit"]], remote_url=cfg["tasks"]["remote_url"])
    co = checkout_instance(row, mirror["mirror"], cache / "checkouts")
    db = None
    if index:
        db = cache / "index" / f"{repo_slug(row['repo'])}@{row['base_commit']}.sqlite"
        build_index(co["path"], db, options=cfg["index"])
    return row, mirror, co, db


def run(args: argparse.Namespace) -> int:
    from swevis.agents.registry import agent_kind, load_modules, variant_config
    from swevis.agents.run.runner import clear_outputs, make_run_spec, prelocalize_run, run_instance
    from swevis.agents.run.spec import RunInputs
    from swevis.config import load_user_config
    from swevis.models import register_api_keys

    cfg, config_name = load_user_config(args.config)
    load_modules(cfg["agents"]["modules"])
    try:  # a variant runs with its entry, as the workflow's runs do (swevis.workflow.agent_param_sets)
        agents_cfg = {**cfg["agents"], **variant_config(cfg["agents"], args.agent)}
    except SwevisError as exc:
        raise SwevisError(f"{config_name}: {exc}") from None
    kind = agent_kind(args.agent)
    model, profile = model_profile(cfg, args.model, config_name)
    register_api_keys(cfg["models"])  # every live profile's key is redacted from what this run writes
    if args.demo:
        require_file(args.demo, "--demo")
    output_folder(args.out, "-o/--out")
    output_folder(args.cache, "--cache")
    row, mirror, co, db = prepare_instance(cfg, args.instance, args.cache, index=kind.needs_index)
    # the workflow's own spec: playback source, response cache, journal, ledger, workspace, top_k
    inputs = RunInputs(
        model=model, profile=profile, row=row, mirror=mirror["mirror"], agents_cfg=agents_cfg, localize_cfg=cfg["localize"],
        render_cfg=cfg["single_read"].get("render", {}), index_db=None if db is None else str(db), pristine_dir=co["path"],
    )
    spec = make_run_spec(inputs, agent=args.agent, scope=args.scope, condition=str(args.condition), out_dir=args.out,
                         demo=args.demo, harness_cfg=cfg["harness"])
    clear_outputs(args.out)  # before pre-localization, which may fail first
    if kind.needs_preloc:
        spec.preloc = prelocalize_run(spec)
    traj = run_instance(spec)
    # A finished trajectory is a result whatever its exit status (printed here): 0. Exit 1 is
    # the machinery failing (InfrastructureError) and 2 a user error, both raised above.
    print(json.dumps({k: traj[k] for k in ("instance_id", "agent", "condition", "exit_status", "totals", "phases")}, indent=2))
    return 0
