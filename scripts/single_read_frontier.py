"""Snakemake adapter: gather the backbones' frontier rows into frontier.csv and its summary (swevis.analysis.single_read_io.study_frontier)."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_frontier

with script_logging(snakemake.log[0]) as log:
    summary = study_frontier(
        list(snakemake.input.parts),
        dict(snakemake.params.single_read, ocr=snakemake.params.ocr),
        snakemake.params.backbones,
        snakemake.output.frontier,
        snakemake.output.summary,
    )
    log.info("%s", summary)
