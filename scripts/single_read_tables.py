"""Snakemake adapter: Table 4 (per backbone, the first as results/table4.csv) and Figure 3."""

from swevis.logutil import script_logging
from swevis.analysis.single_read_io import study_tables

with script_logging(snakemake.log[0]):
    study_tables(
        snakemake.input.costs,
        snakemake.params.ratios,
        snakemake.params.backbones,
        snakemake.output.table4,
        list(snakemake.output.per_backbone),
        list(snakemake.output.ocr),
        snakemake.output.figure,
    )
