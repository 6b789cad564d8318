"""Snakemake adapter: sample task instances into results/instances.jsonl."""

from swevis.logutil import script_logging
from swevis.provenance import write_json_atomic
from swevis.tasks import write_instances
from swevis.tasks.sources import sample_summary, select_instances

with script_logging(snakemake.log[0]) as log:
    tasks_cfg = snakemake.params.tasks
    rows = select_instances(tasks_cfg)
    summary = sample_summary(tasks_cfg, rows)
    log.info("sampled %d instances: %s", len(rows), summary["per_repo"])
    write_json_atomic(summary, snakemake.output.summary)
    write_instances(rows, snakemake.output.instances)
