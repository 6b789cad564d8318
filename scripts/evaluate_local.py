"""Snakemake adapter: grade one run's patch with the local test runner (identical patches of
one instance share one evaluation through the evaluation cache)."""

import json
from pathlib import Path

from swevis.harness.cache import EvalCache, cached_evaluation
from swevis.harness.local import evaluate_patch
from swevis.logutil import script_logging
from swevis.provenance import write_json_atomic
from swevis.tasks import load_instances

with script_logging(snakemake.log[0]) as log:
    wc, params = snakemake.wildcards, snakemake.params
    row = next(r for r in load_instances(snakemake.input.instances) if r["instance_id"] == wc.instance)
    with open(snakemake.input.mirror) as fh:
        mirror = json.load(fh)["mirror"]
    patch = Path(snakemake.input.patch).read_text()
    cfg = params.harness
    test_log = Path(snakemake.output.eval).with_name("test_output.txt")

    def grade(attempts=int(cfg.get("retries", 1)) + 1):
        for attempt in range(1, attempts + 1):
            record = evaluate_patch(row, patch, mirror, log_path=test_log, timeout_s=float(cfg["timeout_s"]))
            record["attempts"] = attempt
            if not record["infra_failure"]:
                break
            log.warning("attempt %d: infrastructure failure: %s", attempt, record["error"])
        return record

    record = cached_evaluation(EvalCache(cfg.get("cache_dir")), wc.instance, patch, "local", grade)
    log.info("%s: resolved=%s (%s)", wc.instance, record["resolved"], "cached" if record["cached"] else "evaluated")
    write_json_atomic(record, snakemake.output.eval)
