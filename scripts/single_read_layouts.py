"""Snakemake adapter: lay out every window x ratio x backbone undrawn (swevis.analysis.single_read_io.study_layouts)."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_layouts

with script_logging(snakemake.log[0]) as log:
    stats = study_layouts(
        snakemake.input.windows,
        snakemake.params.single_read,
        snakemake.params.backbones,
        snakemake.output.layouts,
        snakemake.output.stats,
    )
    log.info("%s", stats)
