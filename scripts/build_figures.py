"""Snakemake adapter: Figures 2, 4, 5 (action classes) and 6 (coverage vs resolution)."""

from pathlib import Path

from swevis.analysis.build import build_figures
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    p = snakemake.params
    config = {"analysis": p.analysis, "agents": {"matrix": p.matrix}, "models": {m: {} for m in p.models}}
    out_dir = Path(snakemake.output.figure2).parent
    paths = build_figures(snakemake.input.summaries, config, out_dir)
    log.info("wrote %s", ", ".join(str(x) for x in paths))
