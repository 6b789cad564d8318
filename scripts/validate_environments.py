"""Snakemake adapter: validate every sampled instance's environment (gold resolves, empty does not)."""

from pathlib import Path

from swevis.harness.validate import validate_environments, write_validation
from swevis.logutil import script_logging
from swevis.tasks import load_instances
from swevis.tasks.repos import mirrors_by_repo

with script_logging(snakemake.log[0]) as log:
    cfg = snakemake.params.harness
    rows = load_instances(snakemake.input.instances)
    out = Path(snakemake.output.validation)
    work_dir = out.with_suffix("")
    mirrors = mirrors_by_repo(snakemake.input.mirrors)
    report = validate_environments(rows, cfg, work_dir, mirrors=mirrors)
    write_validation(report, out)
    log.info("%s (%s): %d/%d environments valid; invalid: %s", report["harness"], report["environment"],
             report["n_valid"], report["n"], report["invalid"] or "none")
