"""Snakemake adapter: summary.json of one condition (accuracy over valid environments, tokens, cost, per-run rows)."""

from pathlib import Path

from swevis.analysis.build import summarize_condition
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    p = snakemake.params
    config = {"analysis": {"coverage": p.coverage}}
    out = snakemake.output.summary
    summary = summarize_condition(Path(out).parent, snakemake.input.instances, config, out, snakemake.input.validation)
    log.info("%s: %s/%s resolved (valid runs); invalid environments: %s", Path(out).parent, summary["resolved"],
             summary["n"], summary["invalid_instances"] or "none")
