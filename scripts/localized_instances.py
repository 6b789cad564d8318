"""Snakemake adapter: results/localized_instances.jsonl, the rows of the bundled sets the study
indexes and localizes beside its sample (tasks.localized_sets), tagged localized_set."""

from swevis.logutil import script_logging
from swevis.tasks import write_instances
from swevis.tasks.sources import localized_instances

with script_logging(snakemake.log[0]) as log:
    tasks_cfg = snakemake.params.tasks
    rows = localized_instances(list(tasks_cfg.get("localized_sets") or []), tasks_cfg)
    log.info("localized sets %s: %d instances", tasks_cfg.get("localized_sets") or "none", len(rows))
    write_instances(rows, snakemake.output.instances)
