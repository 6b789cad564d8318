"""A workflow folder moves between machines: results/ and .swevis-cache name no absolute path
of the folder (nor of the package's install location), and after a move the readers find the
mirror and the checkout at their new place. Logs are left out: they say where a job ran, and
nothing reads them."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import PROJECT_ROOT
from helpers import run_snakemake as snakemake

from swevis.tasks.repos import portable_manifest, read_manifest

TINY = """
tasks:
  source: bundled
  instance_ids: [swevis-samples__ledgerkit-117]
"""
CHECKOUT = "results/checkouts/swevis-samples__ledgerkit-117.json"
MIRROR = "results/repos/swevis-samples__ledgerkit.json"


def files_naming(folder: Path, text: str) -> list[str]:
    """Every file below `folder` whose bytes contain `text` (logs and git's own files left out)."""
    return sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*")
        if p.is_file() and not {"logs", ".git"} & set(p.relative_to(folder).parts[:-1])
        and text.encode() in p.read_bytes()
    )


def test_manifest_folders_are_relative_to_the_working_directory_and_read_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inside, outside = tmp_path / ".swevis-cache" / "mirrors" / "x.git", tmp_path.parent / "elsewhere"
    written = portable_manifest({"repo": "o/x", "mirror": str(inside), "path": str(outside)})
    assert written == {"repo": "o/x", "mirror": ".swevis-cache/mirrors/x.git", "path": str(outside)}
    (tmp_path / "m.json").write_text(json.dumps(written))
    assert read_manifest(tmp_path / "m.json") == {"repo": "o/x", "mirror": str(inside), "path": str(outside)}


@pytest.mark.slow
def test_a_moved_workflow_folder_names_no_old_path_and_runs_on(tmp_path: Path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "config.yaml").write_text(TINY)
    proc = snakemake(old, CHECKOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads((old / MIRROR).read_text())["mirror"] == ".swevis-cache/mirrors/swevis-samples__ledgerkit.git"
    assert json.loads((old / CHECKOUT).read_text())["path"] == ".swevis-cache/checkouts/swevis-samples__ledgerkit-117"
    for folder in ("results", ".swevis-cache"):
        assert files_naming(old / folder, str(old)) == []
        assert files_naming(old / folder, str(PROJECT_ROOT)) == []

    new = tmp_path / "new"
    shutil.move(old, new)
    # the moved checkout is still a working git repository (its mirror is borrowed relatively)
    checkout = new / json.loads((new / CHECKOUT).read_text())["path"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True)
    assert head.returncode == 0 and head.stdout.strip() == json.loads((new / CHECKOUT).read_text())["base_commit"]
    # a job downstream of the manifest (the index) reads the checkout at its new place
    commit = head.stdout.strip()
    index = f"results/index/swevis-samples__ledgerkit@{commit}.sqlite"
    proc = snakemake(new, index)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (new / index).stat().st_size > 0
    assert files_naming(new / "results", str(old)) == [] and files_naming(new / "results", str(new)) == []
