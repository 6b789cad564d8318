"""The per-condition jobs' entry modules leave out the slow imports they never use: each of the
58 summary and 58 grading jobs of the default is a fresh interpreter that pays for every module
its script imports (docs/measurements.md, a short job's fixed part)."""

import subprocess
import sys

import pytest

NOT_IMPORTED = {
    # the summary reads run folders into JSON: no DataFrame, no figure, no table code
    "swevis.analysis.summary": ("polars", "matplotlib", "swevis.analysis.tables"),
    # the local harness grades without the Docker SDK
    "swevis.harness.evaluate": ("docker", "swevis.harness.docker"),
}


@pytest.mark.parametrize("entry", sorted(NOT_IMPORTED))
def test_a_job_entry_module_does_not_import_what_it_never_uses(entry):
    code = f"import sys, {entry}; print('imported:', *(m for m in {NOT_IMPORTED[entry]!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1].strip() == "imported:"  # mini-swe-agent prints a banner first
