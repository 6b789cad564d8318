"""Snakemake adapter: D_loc along history over every case (swevis devset measure); resumes,
the manifest counts the results."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: many small products, one thread

from pathlib import Path  # noqa: E402

from swevis.fsutil import write_json_atomic  # noqa: E402
from swevis.localize.devset.runner import load_results, measure_cases  # noqa: E402
from swevis.localize.devset.settings import DevsetSettings  # noqa: E402
from swevis.localize.devset.steps import shipped_cases  # noqa: E402
from swevis.logutil import script_logging  # noqa: E402

with script_logging(snakemake.log[0]):  # noqa: F821
    s = DevsetSettings.of({"devset": snakemake.params.devset})  # noqa: F821
    cases = shipped_cases(s.files)
    measure_cases(cases, Path(s.mirrors), Path(s.work))
    results = load_results(Path(s.work), {c["case_id"] for c in cases})
    write_json_atomic(snakemake.output.manifest, {"cases": len(cases), "results": len(results)})  # noqa: F821
