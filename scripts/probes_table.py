"""Snakemake adapter: results/table_probes.csv (the probe sets' runs: class, route, candidates, vote, resolved)."""

from swevis.analysis.class_probes import build_probes_table
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    table = build_probes_table(
        snakemake.config["results_dir"],
        [tuple(cell) for cell in snakemake.params.cells],
        snakemake.input.instances,
        snakemake.input.validation,
        snakemake.output.table,
    )
    log.info("wrote %s (%d probe runs)", snakemake.output.table, table.height)
