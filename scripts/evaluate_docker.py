"""Snakemake adapter: the official swebench harness in Docker on one condition's patches."""

from pathlib import Path

from swevis.harness.docker import evaluate_condition
from swevis.logutil import script_logging
from swevis.tasks import load_instances

with script_logging(snakemake.log[0]) as log:
    wc = snakemake.wildcards
    rows = load_instances(snakemake.input.instances)
    condition_dir = Path(snakemake.output.done).parent.parent
    summary = evaluate_condition(
        condition_dir, rows, model=wc.model, agent=wc.agent, scope=wc.scope, condition=wc.condition,
        settings=snakemake.params.harness,
    )
    log.info("%s: %d/%d resolved, %d infrastructure failures", summary["run_id"], summary["resolved"], summary["n"],
             summary["infra_failures"])
