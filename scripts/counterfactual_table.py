"""Snakemake adapter: the reduction table, the gap decomposition and the figure of a replayed set."""

import polars as pl

from swevis.analysis.counterfactual import decomposition_table, reduction_table, trajectory_costs
from swevis.analysis.counterfactual_figure import counterfactual_figure
from swevis.table_csv import write_table_csv
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]) as log:
    p = snakemake.params
    costs = trajectory_costs(pl.read_parquet(snakemake.input.steps))
    table = reduction_table(costs, resamples=p.bootstrap["resamples"], seed=p.bootstrap["seed"])
    write_table_csv(table, snakemake.output.table)
    decomposition = decomposition_table(costs)
    write_table_csv(decomposition, snakemake.output.decomposition)
    counterfactual_figure(costs, decomposition, snakemake.output.figure, p.dpi)
    log.info("wrote %s (%d rows), %s and %s", snakemake.output.table, table.height, snakemake.output.decomposition,
             snakemake.output.figure)
