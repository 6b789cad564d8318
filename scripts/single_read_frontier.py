"""Snakemake adapter: the OCR readability frontier on windows of installed packages (swevis.analysis.single_read_io)."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_frontier

with script_logging(snakemake.log[0]) as log:
    summary = study_frontier(
        snakemake.params.single_read,
        snakemake.params.backbones,
        snakemake.output.frontier,
        snakemake.output.summary,
    )
    log.info("%s", summary)
