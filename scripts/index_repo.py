"""Snakemake adapter: build the index of one repo@commit from a checkout manifest."""

import json

from swevis.index import build_index
from swevis.logutil import setup_logging

setup_logging(snakemake.log[0])  # noqa: F821
with open(snakemake.input.manifest) as fh:  # noqa: F821
    manifest = json.load(fh)
stats = build_index(
    manifest["path"],
    snakemake.output.db,  # noqa: F821
    repo=manifest["repo"],
    commit=manifest["base_commit"],
    options=snakemake.params.index,  # noqa: F821
    force=True,
)
bad = {k: v for k, v in stats.status_counts.items() if k != "ok"}
if bad:
    import logging

    logging.getLogger("index_repo").warning("bad files (indexed as far as possible): %s", bad)
