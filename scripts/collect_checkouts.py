"""Snakemake adapter: one list of every sampled instance's checkout manifest."""

import json

from swevis.logutil import script_logging
from swevis.provenance import write_json_atomic

with script_logging(snakemake.log[0]):
    manifests = []
    for path in snakemake.input:
        with open(path) as fh:
            manifests.append(json.load(fh))
    write_json_atomic(manifests, snakemake.output.done)
