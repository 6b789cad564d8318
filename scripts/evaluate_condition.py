"""Snakemake adapter: grade every patch of one condition (local runner or Docker harness): its
study runs (<condition>/harness/), or with params.probe_sets its probe runs, graded as a
condition folder of their own (<condition>/probes/harness/)."""

from swevis.harness.evaluate import evaluate_condition
from swevis.logutil import exit_without_teardown, script_logging
from swevis.paths import ConditionKey, ResultsLayout
from swevis.tasks import load_instances, study_rows
from swevis.tasks.repos import mirrors_by_repo

with script_logging(snakemake.log[0]) as log:
    key = ConditionKey.of(snakemake.wildcards)
    layout = ResultsLayout(snakemake.config["results_dir"])
    rows = load_instances(snakemake.input.instances)
    probe_sets = getattr(snakemake.params, "probe_sets", None)
    if probe_sets:
        condition_dir = layout.probe_dir(key)
        rows = [r for r in rows if r.get("probe_set") in probe_sets]
    else:
        condition_dir = layout.condition_dir(key)
        rows = study_rows(rows)
    summary = evaluate_condition(
        condition_dir, rows, key, settings=snakemake.params.harness,
        mirrors=mirrors_by_repo(snakemake.input.mirrors), repeats=snakemake.params.repeats,
    )
    log.info("%s: %d/%d resolved, infrastructure failures: %s", condition_dir, summary["resolved"], summary["n"],
             summary["infra_failures"] or "none")

exit_without_teardown()
