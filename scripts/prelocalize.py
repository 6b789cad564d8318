"""Snakemake adapter: PLB's offline pre-localization of one instance for one model."""

from pathlib import Path

from swevis.agents.registry import preloc_agent
from swevis.agents.run.runner import make_run_spec, prelocalize_run
from swevis.agents.run.spec import RunInputs
from swevis.logutil import exit_without_teardown, script_logging
from swevis.provenance import provenance, write_json_atomic
from swevis.tasks import load_instances
from swevis.tasks.repos import read_manifest

with script_logging(snakemake.log[0]) as log:
    wc, params = snakemake.wildcards, snakemake.params
    row = next(r for r in load_instances(snakemake.input.instances) if r["instance_id"] == wc.instance)
    pristine = read_manifest(snakemake.input.checkout)["path"]
    # the PLB run's spec: its playback source and response cache; the package depends on no
    # scope or condition, and pre-localization reads the pristine checkout, not the mirror
    inputs = RunInputs(model=wc.model, profile=params.profile, row=row, mirror="", agents_cfg=params.agents,
                       localize_cfg=params.localize, index_db=snakemake.input.index, pristine_dir=pristine)
    spec = make_run_spec(inputs, agent=preloc_agent(), scope="normal", condition="text",
                         out_dir=str(Path(snakemake.output.preloc).parent))
    result = prelocalize_run(spec)
    log.info("pre-localized %s: %s prompt tokens", wc.instance, result["usage"]["usage"]["prompt_tokens"])
    write_json_atomic({**result, "provenance": provenance(params.profile, model=wc.model)}, snakemake.output.preloc)

exit_without_teardown()
