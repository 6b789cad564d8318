"""Snakemake adapter: Tables 1-3, McNemar tests and token calibration from the summaries."""

from swevis.analysis.build import build_tables
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    p = snakemake.params
    config = {"analysis": p.analysis, "agents": {"matrix": p.matrix}, "models": {m: {} for m in p.models}}
    outputs = {name: path for name, path in snakemake.output.items()}
    tables = build_tables(snakemake.input.summaries, config, outputs, retired=p.retired)
    log.info("wrote %s", ", ".join(sorted(outputs)))
