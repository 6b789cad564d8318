"""Snakemake adapter: make sure one repository's bare mirror holds every sampled base commit."""

from swevis.logutil import script_logging
from swevis.paths import repo_slug
from swevis.provenance import provenance, write_json_atomic
from swevis.tasks.instances import rows_of_layout
from swevis.tasks.repos import ensure_mirror, portable_manifest

with script_logging(snakemake.log[0]) as log:
    tasks_cfg = snakemake.params.tasks
    rows = [r for r in rows_of_layout(snakemake.input.instances) if repo_slug(r["repo"]) == snakemake.wildcards.repo_slug]
    if not rows:
        raise SystemExit(f"no sampled instance belongs to {snakemake.wildcards.repo_slug}")
    manifest = ensure_mirror(
        rows[0]["repo"],
        tasks_cfg["repo_cache"],
        commits=[r["base_commit"] for r in rows],
        remote_url=tasks_cfg["remote_url"],
        clone_timeout_s=snakemake.config["tasks"]["clone_timeout_s"],
        stall_timeout_s=snakemake.config["tasks"]["stall_timeout_s"],
    )
    log.info("mirror ready: %s", manifest["mirror"])
    write_json_atomic({**portable_manifest(manifest), **provenance()}, snakemake.output.manifest)
