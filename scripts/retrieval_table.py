"""Snakemake adapter: results/table_retrieval.csv (retrieval precision and recall) from the summaries and D_loc's per-instance rows."""

from swevis.analysis.retrieval import build_retrieval_table
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    table = build_retrieval_table(
        list(snakemake.input.summaries),
        snakemake.input.localization,
        dict(snakemake.params.bootstrap),
        snakemake.output.table,
    )
    log.info("wrote %s (%d rows)", snakemake.output.table, table.height)
