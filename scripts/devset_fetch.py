"""Snakemake adapter: the development set's clones (swevis devset fetch); the manifest names
each clone's HEAD."""

from pathlib import Path

from swevis.fsutil import write_json_atomic
from swevis.localize.devset.prepare import clone_folders, fetch_mirrors
from swevis.localize.devset.settings import DevsetSettings
from swevis.localize.devset.steps import shipped_cases
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]):  # noqa: F821
    s = DevsetSettings.of({"devset": snakemake.params.devset})  # noqa: F821
    heads = fetch_mirrors(Path(s.mirrors), s.remote, clone_folders(shipped_cases(s.files)))
    write_json_atomic(snakemake.output.manifest, {"mirrors": s.mirrors, "heads": heads})  # noqa: F821
