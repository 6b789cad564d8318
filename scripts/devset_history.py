"""Snakemake adapter: every case's past commits (swevis devset history), stored per repository."""

from pathlib import Path

from swevis.fsutil import write_json_atomic
from swevis.localize.devset.pasthistory import store_history
from swevis.localize.devset.settings import DevsetSettings
from swevis.localize.devset.steps import shipped_cases
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]):  # noqa: F821
    s = DevsetSettings.of({"devset": snakemake.params.devset})  # noqa: F821
    cases = shipped_cases(s.files)
    store_history(cases, Path(s.mirrors), Path(s.work), s.history_depth)
    write_json_atomic(snakemake.output.manifest, {"cases": len(cases), "depth": s.history_depth})  # noqa: F821
