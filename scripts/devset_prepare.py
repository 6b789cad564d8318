"""Snakemake adapter: each case's text, gold diff and meta under the work folder (swevis
devset prepare); resumes, the manifest counts the cases."""

from pathlib import Path

from swevis.fsutil import write_json_atomic
from swevis.localize.devset.prepare import prepare
from swevis.localize.devset.settings import DevsetSettings
from swevis.localize.devset.steps import shipped_cases
from swevis.logutil import script_logging

with script_logging(snakemake.log[0]):  # noqa: F821
    s = DevsetSettings.of({"devset": snakemake.params.devset})  # noqa: F821
    cases = shipped_cases(s.files)
    written = prepare(cases, Path(s.mirrors), Path(s.work))
    write_json_atomic(snakemake.output.manifest, {"cases": len(cases), "written": written})  # noqa: F821
