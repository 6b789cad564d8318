"""Snakemake adapter: grade every patch of one condition (local runner or Docker harness)."""

from swevis.harness.docker import evaluate_condition
from swevis.harness.local import evaluate_condition_local
from swevis.logutil import script_logging
from swevis.paths import ConditionKey, ResultsLayout
from swevis.tasks import load_instances
from swevis.tasks.repos import mirrors_by_repo

with script_logging(snakemake.log[0]) as log:
    wc, cfg = snakemake.wildcards, snakemake.params.harness
    rows = load_instances(snakemake.input.instances)
    key = ConditionKey.of(wc)
    condition_dir = ResultsLayout(snakemake.config["results_dir"]).condition_dir(key)
    mirrors = mirrors_by_repo(snakemake.input.mirrors)
    if cfg["kind"] == "docker":
        summary = evaluate_condition(
            condition_dir, rows, model=key.model, agent=key.agent, scope=key.scope, condition=key.condition, settings=cfg,
            repeats=snakemake.params.repeats, mirrors=mirrors,
        )
    else:
        summary = evaluate_condition_local(condition_dir, rows, mirrors, settings=cfg, repeats=snakemake.params.repeats)
    log.info("%s: %d/%d resolved, infrastructure failures: %s", condition_dir, summary["resolved"], summary["n"],
             summary["infra_failures"] or "none")
