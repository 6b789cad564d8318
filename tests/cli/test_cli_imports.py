"""`swevis` imports only what the chosen subcommand needs: the top level's --help and
--version no stage at all, a subcommand's --help nothing beyond its own stage's package, and a
real `swevis index` none of the libraries of the other stages. Measured in a fresh interpreter
(sys.modules after main() returns); the times are benchmarks/cli_startup.py's business."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from swevis.cli import SUBCOMMANDS

# Libraries of other stages that `swevis index --help` used to load (every stage's cli module
# was imported to build the parser).
HEAVY = ("polars", "minisweagent", "swebench", "docker", "matplotlib")
# Modules every subcommand may load to parse its arguments.
PARSING = {"swevis", "swevis.cli", "swevis.arguments", "swevis.errors", "swevis.conditions", "swevis.redaction"}  # redaction: the one-line error (stdlib only)
# the condition grammar is built from the page families' records (light: no renderer)
PARSING |= {"swevis.page_families", *(f"swevis.page_families.{m}" for m in ("record", "code_family", "obs_family",
                                                                              "hist_family", "both_family"))}

PROBE = """
import json, sys
baseline = set(sys.modules)
for name in sys.argv[2].split(",") if sys.argv[2] else []:
    __import__(name)
before = set(sys.modules)
from swevis.cli import main
try:
    code = main(sys.argv[3:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
json.dump({"code": code, "stage": sorted(before - baseline), "added": sorted(set(sys.modules) - before)},
          open(sys.argv[1], "w"))
"""


def imported(tmp_path: Path, argv: list[str], preload: list[str] = ()) -> dict:
    """{code, stage: modules `preload` brought, added: modules main(argv) brought beyond them}."""
    out = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", PROBE, str(out), ",".join(preload), *argv], check=True,
                   capture_output=True, cwd=tmp_path)
    return json.loads(out.read_text())


def _top(names: list[str]) -> set[str]:
    return {n.split(".")[0] for n in names}


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["bogus"], []])
def test_the_top_level_imports_no_stage(tmp_path, argv):
    found = imported(tmp_path, argv)
    swevis_modules = {m for m in found["added"] if m.split(".")[0] == "swevis"}
    assert swevis_modules <= PARSING, sorted(swevis_modules - PARSING)
    assert not _top(found["added"]) & set(HEAVY)


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_a_subcommands_help_imports_its_stage_only(tmp_path, command):
    """Beyond its stage's package (`swevis.index` for index, whatever that package's own
    __init__ needs), `swevis SUB --help` loads the parser's modules and SUB's cli module."""
    module = SUBCOMMANDS[command][0]
    package = module.rsplit(".", 1)[0]
    found = imported(tmp_path, [command, "--help"], preload=["swevis.cli", package])
    assert found["code"] == 0
    extra = {m for m in found["added"] if m.split(".")[0] == "swevis"} - PARSING - {module}
    assert not extra, f"swevis {command} --help imports {sorted(extra)}"
    assert not _top(found["added"]) & set(HEAVY), sorted(_top(found["added"]) & set(HEAVY))


def test_index_help_and_index_build_import_no_other_stage_library(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return 1\n")
    for argv in (["index", "--help"], ["index", str(repo), "--db", str(tmp_path / "i.sqlite")]):
        found = imported(tmp_path, argv)
        assert found["code"] == 0
        assert not _top(found["added"]) & set(HEAVY), (argv, sorted(_top(found["added"]) & set(HEAVY)))
        stages = {m.split(".")[1] for m in found["added"] if m.startswith("swevis.") and m.count(".") >= 1}
        assert not stages & {"agents", "harness", "analysis", "counterfactual", "sandbox", "models", "tasks"}, stages
