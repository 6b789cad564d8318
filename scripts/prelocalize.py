"""Snakemake adapter: PLB's offline pre-localization of one instance for one model."""

import json

from swevis.agents.demos import demo_path
from swevis.agents.runner import prelocalize
from swevis.logutil import script_logging
from swevis.models import make_model
from swevis.provenance import provenance, write_json_atomic
from swevis.tasks import load_instances

with script_logging(snakemake.log[0]) as log:
    wc, params = snakemake.wildcards, snakemake.params
    row = next(r for r in load_instances(snakemake.input.instances) if r["instance_id"] == wc.instance)
    with open(snakemake.input.checkout) as fh:
        pristine = json.load(fh)["path"]
    replay = None
    if params.profile["backend"] == "replay":
        replay = str(demo_path("plb", wc.instance, params.agents.get("demos_dir")))
    chat = make_model(wc.model, params.profile, cache_dir=params.agents["cache_dir"], replay_source=replay)
    result = prelocalize(
        row, chat, index_db=snakemake.input.index, pristine_dir=pristine, index_cfg=params.localize,
        top_k=params.agents["top_k"],
    )
    log.info("pre-localized %s: %s prompt tokens", wc.instance, result["usage"]["usage"]["prompt_tokens"])
    write_json_atomic({**result, "provenance": provenance(params.profile, model=wc.model)}, snakemake.output.preloc)
