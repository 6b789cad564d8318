"""Snakemake adapter: one trajectory of one agent on one instance under one condition."""

import json
from pathlib import Path

from swevis.agents.run.runner import make_run_spec, run_instance
from swevis.agents.run.spec import RunInputs
from swevis.logutil import script_logging
from swevis.tasks import load_instances
from swevis.tasks.repos import read_manifest

with script_logging(snakemake.log[0]) as log:
    wc, params = snakemake.wildcards, snakemake.params
    row = next(r for r in load_instances(snakemake.input.instances) if r["instance_id"] == wc.instance)
    checkout = read_manifest(snakemake.input.checkout)
    pristine, mirror = checkout["path"], checkout["mirror"]
    preloc = None
    if snakemake.input.preloc:
        with open(snakemake.input.preloc) as fh:
            preloc = json.load(fh)
    inputs = RunInputs(
        model=wc.model, profile=params.profile, row=row, mirror=mirror, agents_cfg=params.agents,
        localize_cfg=params.localize, render_cfg=params.render, index_db=snakemake.input.index, pristine_dir=pristine,
    )
    spec = make_run_spec(
        inputs, agent=wc.agent, scope=wc.scope, condition=wc.condition, out_dir=str(Path(snakemake.output.traj).parent),
        preloc=preloc, repeat=int(getattr(wc, "rep", 0) or 0), harness_cfg=params.harness,
    )
    traj = run_instance(spec)
    log.info("%s %s-%s %s %s: %s, %d prompt tokens in %d calls (%d resumed from the journal)", wc.model, wc.agent,
             wc.scope, wc.condition, wc.instance, traj["exit_status"], traj["totals"]["prompt_tokens"],
             traj["totals"]["calls"], traj["provenance"]["resume"]["resumed_steps"])
