"""Snakemake adapter: grade every patch of one condition (local runner or Docker harness)."""

from swevis.harness.evaluate import evaluate_condition
from swevis.logutil import script_logging
from swevis.paths import ConditionKey, ResultsLayout
from swevis.tasks import load_instances
from swevis.tasks.repos import mirrors_by_repo

with script_logging(snakemake.log[0]) as log:
    key = ConditionKey.of(snakemake.wildcards)
    condition_dir = ResultsLayout(snakemake.config["results_dir"]).condition_dir(key)
    summary = evaluate_condition(
        condition_dir, load_instances(snakemake.input.instances), key, settings=snakemake.params.harness,
        mirrors=mirrors_by_repo(snakemake.input.mirrors), repeats=snakemake.params.repeats,
    )
    log.info("%s: %d/%d resolved, infrastructure failures: %s", condition_dir, summary["resolved"], summary["n"],
             summary["infra_failures"] or "none")
