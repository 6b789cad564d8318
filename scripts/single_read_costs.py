"""Snakemake adapter: render every window x ratio x backbone (swevis.analysis.single_read_io.study_costs)."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_costs

with script_logging(snakemake.log[0]) as log:
    stats = study_costs(
        snakemake.input.windows,
        snakemake.params.single_read,
        snakemake.params.backbones,
        snakemake.output.costs,
        snakemake.output.stats,
    )
    log.info("%s", stats)
