"""Snakemake adapter: join the layouts and every backbone's OCR pages into costs.parquet (swevis.analysis.single_read_io.study_costs)."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_costs

with script_logging(snakemake.log[0]) as log:
    stats = study_costs(
        snakemake.input.layouts,
        snakemake.input.layout_stats,
        list(snakemake.input.ocr),
        dict(snakemake.params.single_read, ocr=snakemake.params.ocr),
        snakemake.params.backbones,
        snakemake.output.costs,
        snakemake.output.stats,
    )
    log.info("%s", stats)
