"""examples/polyglot.yaml end to end: the agent matrix (mini; LET under text and r3) on the
bundled Java and JavaScript instances, played back, graded by the local harness with the
repositories' own tests (javac/java, node --test). Where the JDK or Node.js is missing the
test skips with the reason (.ci/run installs both and requires it)."""

import shutil
from pathlib import Path

import polars as pl
import pytest
import yaml

from helpers import PROJECT_ROOT, engine_unavailable, run_snakemake

EXAMPLE = PROJECT_ROOT / "examples" / "polyglot.yaml"
TOOLS = ("javac", "java", "node")


@pytest.mark.slow
def test_polyglot_example_resolves_every_instance_by_language(tmp_path: Path):
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        engine_unavailable(f"{', '.join(missing)} not on PATH: the polyglot set's tests need a JDK and Node.js "
                           "(Debian: apt-get install default-jdk-headless nodejs)")
    study = yaml.safe_load(EXAMPLE.read_text())
    study["results_dir"] = "results"
    (tmp_path / "polyglot.yaml").write_text(yaml.safe_dump(study))
    shutil.copy(PROJECT_ROOT / "config.yaml", tmp_path / "config.yaml")  # present, as in a checkout; not read
    proc = run_snakemake(tmp_path, "--configfile", str(tmp_path / "polyglot.yaml"), "--",
                         "results/table1.csv", "results/localization.csv")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    table = pl.read_csv(tmp_path / "results" / "table1.csv")
    assert table.select("agent", "scope").rows() == [("let", "normal")]
    assert table.select("acc_mini", "acc_text", "acc_r3", "n_min", "n_invalid").row(0) == (100.0, 100.0, 100.0, 4, 0)
    localization = pl.read_csv(tmp_path / "results" / "localization.csv")
    study_rows = localization.filter(pl.col("sample") == "study")
    assert set(study_rows["language"]) == {"all", "java", "javascript"}
    assert study_rows.filter((pl.col("language") != "all") & (pl.col("k") == 1) & (pl.col("level") == "file"))[
        "n_instances"].to_list() == [2, 2]
