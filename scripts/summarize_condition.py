"""Snakemake adapter: summary.json of one condition (accuracy over valid environments, tokens, cost, per-run rows)."""

from swevis.analysis.summary import summarize_condition
from swevis.logutil import exit_without_teardown, script_logging
from swevis.paths import ConditionKey, ResultsLayout

with script_logging(snakemake.log[0]) as log:
    p = snakemake.params
    config = {"analysis": {"coverage": p.coverage}}
    condition_dir = ResultsLayout(snakemake.config["results_dir"]).condition_dir(ConditionKey.of(snakemake.wildcards))
    out = snakemake.output.summary
    summary = summarize_condition(condition_dir, snakemake.input.instances, config, out, snakemake.input.validation,
                                  indexes=list(snakemake.input.indexes))
    log.info("%s: %s/%s resolved (valid runs); invalid environments: %s", condition_dir, summary["resolved"],
             summary["n"], summary["invalid_instances"] or "none")

exit_without_teardown()
