"""Snakemake adapter: the pristine checkout of one instance at its base commit."""

from swevis.logutil import exit_without_teardown, script_logging
from swevis.provenance import provenance, write_json_atomic
from swevis.tasks.instances import rows_of_layout
from swevis.tasks.repos import checkout_instance, fetch_commits, portable_manifest, read_manifest

with script_logging(snakemake.log[0]) as log:
    row = next(r for r in rows_of_layout(snakemake.input.instances) if r["instance_id"] == snakemake.wildcards.instance)
    mirror = read_manifest(snakemake.input.mirror)["mirror"]
    # a commit sampled after the mirror was made is fetched here, not by rerunning the mirror
    # job (which would rerun every checkout and run of the repository)
    tasks = snakemake.config["tasks"]
    fetch_commits(mirror, [row["base_commit"]], timeout=tasks["clone_timeout_s"], stall_timeout_s=tasks["stall_timeout_s"])
    manifest = checkout_instance(row, mirror, snakemake.params.checkout_root)
    log.info("checkout of %s at %s: %s", row["instance_id"], row["base_commit"][:12], manifest["path"])
    write_json_atomic({**portable_manifest(manifest), **provenance()}, snakemake.output.manifest)

exit_without_teardown()
