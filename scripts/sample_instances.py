"""Snakemake adapter: sample task instances into results/instances.jsonl (the study's sample, then
the rows of the probe sets the matrix names, tagged probe_set)."""

from swevis.logutil import script_logging
from swevis.provenance import write_json_atomic
from swevis.tasks import write_instances
from swevis.tasks.sources import probe_instances, sample_summary, select_instances

with script_logging(snakemake.log[0]) as log:
    tasks_cfg = snakemake.params.tasks
    rows = select_instances(tasks_cfg)
    probes = probe_instances(list(snakemake.params.probe_sets), rows)
    summary = sample_summary(tasks_cfg, rows, probes)
    log.info("sampled %d instances: %s; probe sets: %s", len(rows), summary["per_repo"],
             {name: len(ids) for name, ids in summary["probe_sets"].items()} or "none")
    write_json_atomic(summary, snakemake.output.summary)
    write_instances(rows + probes, snakemake.output.instances)
