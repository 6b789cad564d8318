"""Snakemake adapter: build the index of one repo@commit from a checkout manifest."""

from swevis.index import build_index
from swevis.logutil import setup_logging
from swevis.tasks.repos import read_manifest

setup_logging(snakemake.log[0])  # noqa: F821
manifest = read_manifest(snakemake.input.manifest)  # noqa: F821
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
