"""rules/devset.smk: the shipped re-ranker weights are a target of their own (devset_weights),
built from the case lists through clones, prepared cases, measured results and the stored
history, with their provenance; the default target never plans any of it."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from devset_helpers import calc_history, case_files, publish
from helpers import FIXTURES, PROJECT_ROOT, run_snakemake

from swevis.localize.devset.caselists import POLYGLOT_FIELDS, read_cases, write_cases
from swevis.localize.devset.mining import candidates
from swevis.localize.devset.prepare import fetch_mirrors

REPOS = {"me/calc": "me+calc", "me/numb": "me+numb", "me/figs": "me+figs"}
WEIGHTS = "src/swevis/data/ranker_weights.json"  # devset.weights' default, under the test's folder


def _jobs(proc) -> set[str]:
    """The rules a dry run plans (its job table)."""
    if "Job stats:" not in proc.stdout:
        return set()
    table = proc.stdout.split("Job stats:", 1)[1].strip().split("\n\n", 1)[0].splitlines()[2:]  # after its header
    return {line.split()[0] for line in table if not line.startswith("total")}


@pytest.mark.slow  # runs the workflow: five devset jobs, each a Python process of its own
def test_the_weights_are_built_only_when_asked_and_record_what_they_were_made_from(tmp_path):
    for n, (repo, folder) in enumerate(REPOS.items()):
        publish(calc_history(tmp_path / "src-repos" / folder, repo.split("/")[1], 100 * (n + 1)), tmp_path / "remotes", folder)
    # the case lists, as `swevis devset mine` makes them from clones of the same remotes
    scratch = tmp_path / "scratch-mirrors"
    fetch_mirrors(scratch, str(tmp_path / "remotes"), sorted(REPOS.values()))
    files = case_files(tmp_path / "lists")
    mined = {repo: candidates(repo, folder, scratch / folder / "repo", set(), 10)[0] for repo, folder in REPOS.items()}
    write_cases(files.mined, mined["me/calc"] + mined["me/numb"])
    write_cases(files.issues, [])
    # the other languages' list joins the shipped fit (one repository of it here, its language named)
    write_cases(files.polyglot, [{**c, "language": "python"} for c in mined["me/figs"]], POLYGLOT_FIELDS)
    work = tmp_path / "study"
    work.mkdir()
    shutil.copy(PROJECT_ROOT / "config.yaml", work / "config.yaml")
    devset = {"lists": str(files.folder), "verified": str(FIXTURES / "swebench" / "verified_ids.csv"),
              "mirrors": str(tmp_path / "mirrors"), "remote": str(tmp_path / "remotes"), "work": str(tmp_path / "work"),
              "history_depth": 300, "fit": {"synthetic": False}}
    with (work / "config.yaml").open("a") as fh:
        fh.write("\n" + yaml.safe_dump({"devset": devset}))

    default = run_snakemake(work, "-n")
    assert default.returncode == 0, default.stderr[-3000:]
    assert "localization_table" in _jobs(default) and not {j for j in _jobs(default) if j.startswith("devset")}
    asked = run_snakemake(work, "-n", "devset_weights")
    assert _jobs(asked) == {"devset_fetch", "devset_prepare", "devset_measure", "devset_history", "devset_weights"}

    built = run_snakemake(work, "devset_weights", cores=1)
    assert built.returncode == 0, built.stderr[-4000:]
    model = json.loads((work / WEIGHTS).read_text())
    polyglot = {c["case_id"] for c in read_cases(files, files.polyglot)}
    assert len(model["fitted_on"]) == len(read_cases(files)) + len(polyglot) == 12 and model["history_depth"] == 300
    assert polyglot and polyglot <= set(model["fitted_on"])
    assert model["variant"] == "+ names, candidate set, frames, history, listwise" and model["synthetic_cases"] == 0
    assert set(model["sources"]) == {"mined", "issues", "mined_polyglot"} and model["how"].startswith("swevis devset fit")
    manifest = json.loads((tmp_path / "work" / "mirrors.json").read_text())
    assert sorted(manifest["heads"]) == sorted(REPOS.values())
    for step in ("fetch", "prepare", "measure", "history", "weights"):
        assert (work / "results" / "logs" / "devset" / f"{step}.log").is_file(), step
    assert "chosen by held-out symbol hit@5" in (work / "results" / "logs" / "devset" / "weights.log").read_text()

    again = run_snakemake(work, "-n", "devset_weights")
    assert "Nothing to be done" in again.stdout + again.stderr
    after = run_snakemake(work, "-n")
    assert not {j for j in _jobs(after) if j.startswith("devset")}
