"""Snakemake adapter: validate every sampled instance's environment (gold resolves, empty does not)."""

import json
from pathlib import Path

from swevis.harness.validate import validate_docker, validate_local, write_validation
from swevis.logutil import script_logging
from swevis.tasks import load_instances

with script_logging(snakemake.log[0]) as log:
    cfg = snakemake.params.harness
    rows = load_instances(snakemake.input.instances)
    out = Path(snakemake.output.validation)
    work_dir = out.with_suffix("")
    if cfg["kind"] == "docker":
        report = validate_docker(rows, cfg, work_dir)
    else:
        mirrors = {}
        for path in snakemake.input.mirrors:
            with open(path) as fh:
                manifest = json.load(fh)
            mirrors[manifest["repo"]] = manifest["mirror"]
        report = validate_local(rows, mirrors, cfg, work_dir)
    write_validation(report, out)
    log.info("%s (%s): %d/%d environments valid; invalid: %s", report["harness"], report["environment"],
             report["n_valid"], report["n"], report["invalid"] or "none")
