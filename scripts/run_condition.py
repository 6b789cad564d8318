"""Snakemake adapter: every run of one cell (model x agent x scope x condition) in one
process (swevis.agents.run.batch), then the cell's runs.json listing them."""

import json
from pathlib import Path

from swevis.agents.run.batch import run_cell, run_stamp
from swevis.agents.run.runner import make_run_spec, run_instance
from swevis.agents.run.spec import RunInputs
from swevis.logutil import exit_without_teardown, script_logging
from swevis.fsutil import write_json_atomic
from swevis.tasks import load_instances
from swevis.tasks.repos import read_manifest

SETTINGS = ("profile", "agents", "harness", "localize", "render")

with script_logging(snakemake.log[0]) as log:
    wc, params = snakemake.wildcards, snakemake.params
    settings = {name: getattr(params, name) for name in SETTINGS}
    rows = {r["instance_id"]: r for r in load_instances(snakemake.input.instances)}

    def run_one(run):
        files = run["files"]
        checkout = read_manifest(files["checkout"])
        preloc = None
        if files["preloc"]:
            preloc = json.loads(Path(files["preloc"]).read_text())
        inputs = RunInputs(
            model=wc.model, profile=params.profile, row=rows[run["instance"]], mirror=checkout["mirror"],
            agents_cfg=params.agents, localize_cfg=params.localize, render_cfg=params.render, index_db=files["index"],
            pristine_dir=checkout["path"],
        )
        spec = make_run_spec(
            inputs, agent=wc.agent, scope=wc.scope, condition=wc.condition, out_dir=run["out_dir"], preloc=preloc,
            repeat=run["repeat"], harness_cfg=params.harness,
        )
        traj = run_instance(spec)
        log.info("%s %s-%s %s %s: %s, %d prompt tokens in %d calls (%d resumed from the journal)", wc.model, wc.agent,
                 wc.scope, wc.condition, run["out_dir"], traj["exit_status"], traj["totals"]["prompt_tokens"],
                 traj["totals"]["calls"], traj["provenance"]["resume"]["resumed_steps"])

    runs = []
    for run in params.runs:
        files = run["files"]
        inputs = [files["checkout"], files["index"], *([files["preloc"]] if files["preloc"] else []), *files["demos"]]
        stamp = run_stamp(settings, run["digest"], run["repeat"])
        runs.append({**run, "stamp": stamp, "inputs": inputs})
    done = run_cell(runs, run_one)
    log.info("%d runs made, %d current", len(done["ran"]), len(done["current"]))
    write_json_atomic(snakemake.output.runs, {"runs": [r["out_dir"] for r in runs]})

exit_without_teardown()
