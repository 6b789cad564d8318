"""Snakemake adapter: one trajectory of one agent on one instance under one condition."""

import json
from pathlib import Path

from swevis.agents.demos import demo_path
from swevis.agents.environments import workspace_path
from swevis.agents.runner import RunSpec, run_instance
from swevis.logutil import script_logging
from swevis.tasks import load_instances

with script_logging(snakemake.log[0]) as log:
    wc, params = snakemake.wildcards, snakemake.params
    row = next(r for r in load_instances(snakemake.input.instances) if r["instance_id"] == wc.instance)
    with open(snakemake.input.checkout) as fh:
        pristine = json.load(fh)["path"]
    with open(snakemake.input.mirror) as fh:
        mirror = json.load(fh)["mirror"]
    preloc = None
    if snakemake.input.preloc:
        with open(snakemake.input.preloc) as fh:
            preloc = json.load(fh)
    replay = None
    if params.profile["backend"] == "replay":
        replay = str(demo_path(wc.agent, wc.instance, params.agents.get("demos_dir")))
    repeat = int(getattr(wc, "rep", 0) or 0)
    run_name = wc.instance if repeat == 0 else f"{wc.instance}.repeat-{repeat}"
    journal = Path(params.agents["journal_dir"]) / wc.model / f"{wc.agent}-{wc.scope}" / wc.condition / f"{run_name}.jsonl"
    # a repeat asks a live model again: its own response-cache folder
    cache_dir = params.agents["cache_dir"] if repeat == 0 else str(Path(params.agents["cache_dir"]) / f"repeat-{repeat}")
    # The journal survives a killed job (it is no rule output): run_instance resumes from it
    # (live models) and deletes it once traj.json is written. See swevis.agents.resume.
    ledger = Path(params.agents.get("ledger_dir") or ".swevis-cache/ledgers") / wc.model / f"{wc.agent}-{wc.scope}" / f"{wc.condition}.json"
    spec = RunSpec(
        model_name=wc.model, profile=params.profile, agent=wc.agent, scope=wc.scope, condition=wc.condition,
        row=row, mirror=mirror, out_dir=str(Path(snakemake.output.traj).parent), index_db=snakemake.input.index,
        pristine_dir=pristine, preloc=preloc, agents_cfg=params.agents, index_cfg=params.localize,
        render_cfg=params.render, cache_dir=cache_dir, replay_source=replay, repeat=repeat,
        journal_path=str(journal), ledger_path=str(ledger),
        # one flat folder per run, named by digits rather than by agent and condition (see workspace_path)
        workspace=str(workspace_path(params.agents["workspace_dir"], wc.model, wc.agent, wc.scope, wc.condition, run_name)),
    )
    traj = run_instance(spec)
    log.info("%s %s-%s %s %s: %s, %d prompt tokens in %d calls (%d resumed from the journal)", wc.model, wc.agent,
             wc.scope, wc.condition, wc.instance, traj["exit_status"], traj["totals"]["prompt_tokens"],
             traj["totals"]["calls"], traj["provenance"]["resume"]["resumed_steps"])
