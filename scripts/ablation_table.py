"""Snakemake adapter: the ablation table and figure (every variant beside its base agent) from
the condition summaries."""

from swevis.analysis.ablation import build_ablation
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    p = snakemake.params
    config = {"analysis": p.analysis, "agents": {"ablation": {"conditions": p.conditions}}, "models": {m: {} for m in p.models}}
    table = build_ablation(
        list(snakemake.input.summaries), dict(p.variants), config, snakemake.output.table, snakemake.output.figure
    )
    log.info("wrote %s (%d rows) and %s", snakemake.output.table, table.height, snakemake.output.figure)
