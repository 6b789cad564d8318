"""swevis.localize.devset end to end on small local histories (bare remotes made here): fetch,
mine, prepare, measure D_loc along history, store the history, and `swevis devset report`,
`cv` and `fit` over what was stored."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml
from devset_helpers import calc_history, case_files, commit_files, new_repo, publish
from helpers import FIXTURES, git

from swevis.cli import main
from swevis.errors import SwevisError
from swevis.localize.devset.caselists import read_cases, write_cases
from swevis.localize.devset.gitio import move_work_tree
from swevis.localize.devset.mining import mine
from swevis.localize.devset.pasthistory import store_history
from swevis.localize.devset.prepare import fetch_mirrors, prepare
from swevis.localize.devset.runner import load_results, measure_cases, round_robin
from swevis.localize.rerank import check_model
from swevis_dev import ranking_probes_cli

REPOS = {"me/calc": "me+calc", "me/numb": "me+numb", "me/figs": "me+figs"}


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """Three small libraries of four fixes each, fetched, listed, prepared, measured and their
    history stored: (config file, its devset section)."""
    tmp = tmp_path_factory.mktemp("devset")
    for n, (repo, folder) in enumerate(REPOS.items()):
        publish(calc_history(tmp / "src" / folder, repo.split("/")[1], 100 * (n + 1)), tmp / "remotes", folder)
    devset = {"lists": str(tmp / "lists"), "verified": str(FIXTURES / "swebench" / "verified_ids.csv"),
              "mirrors": str(tmp / "mirrors"), "remote": str(tmp / "remotes"), "work": str(tmp / "work"),
              "weights": str(tmp / "ranker_weights.json"), "history_depth": 300, "fit": {"synthetic": False}}
    files = case_files(tmp / "lists")
    fetch_mirrors(tmp / "mirrors", str(tmp / "remotes"), sorted(REPOS.values()))
    mine(tmp / "mirrors", 10, files, mirror_of=REPOS)
    write_cases(files.issues, [])
    cases = read_cases(files)
    prepare(cases, tmp / "mirrors", tmp / "work")
    measure_cases(cases, tmp / "mirrors", tmp / "work", limit=3)
    measure_cases(cases, tmp / "mirrors", tmp / "work")  # resumes: only the fourth case of each
    store_history(cases, tmp / "mirrors", tmp / "work", devset["history_depth"])
    config = tmp / "devset.yaml"
    config.write_text(yaml.safe_dump({"devset": devset}))
    return config, devset


def test_each_case_is_measured_once_along_its_repositorys_history(measured):
    _config, devset = measured
    results = load_results(Path(devset["work"]))
    assert len(results) == 12 and {r["repo"] for r in results} == set(REPOS)
    for r in results:
        fixed = r["gold_symbols"][0][1][0]
        assert r["y"] == [float(c[1] == fixed) for c in r["candidates"]] and r["gold_missed"] == 0
        assert len(r["x"][0]) == len(r["features"]) and r["dloc"]["symbol"]
    order = round_robin(read_cases(case_files(Path(devset["lists"]))))
    assert [c["repo"] for c in order[:3]] == sorted(REPOS)  # one of each repository in turn, oldest first
    history = json.loads((Path(devset["work"]) / "history" / "me+calc.json").read_text())
    assert history["depth"] == 300 and len(history["lists"]) == 4
    assert len(history["lists"]["mined__calc-103"]) == 4  # the three fixes before it and the first commit


def test_report_cv_and_fit_run_from_the_command_line(measured, capsys, tmp_path):
    config, devset = measured
    assert main(["devset", "report", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "any of gold hit at k = 1/3/5/10, D_loc (release) | BM25" in out and "me/numb" in out
    assert main(["devset", "report", "--config", str(config), "--shipped"]) == 0
    out = capsys.readouterr().out
    assert "the release's weights replay 12 of 12 cases' top 10 files exactly" in out
    shipped = out.split("D_loc (shipped weights, replayed)")[1].splitlines()
    assert [line.split()[:2] for line in shipped[2:]] == [["commit-message", "12"], ["all", "12"]]
    assert main(["devset", "cv", "--config", str(config), "--only", "release features, listwise"]) == 0
    out = capsys.readouterr().out
    assert "12 cases, leave-one-repository-out" in out and "chosen by held-out symbol hit@5: release features, listwise" in out
    weights = tmp_path / "w.json"
    assert main(["devset", "fit", "--config", str(config), "--weights", str(weights), "--history-depth", "50"]) == 0
    model = json.loads(weights.read_text())
    check_model(model)
    assert model["variant"] == "+ names, candidate set, frames, history, listwise" and model["history_depth"] == 50
    assert len(model["fitted_on"]) == 12 and model["synthetic_cases"] == 0 and set(model["sources"]) == {"mined", "issues"}
    assert model["args"][-2:] == ["--history-depth", "50"] and "symbol@5" in model["leave_one_repository_out"]
    assert f"wrote {weights}" in capsys.readouterr().out
    assert main(["devset", "fit", "--config", str(config), "--weights", str(weights), "--history-depth", "400"]) == 2
    assert "counts 300 commits, fewer than 400" in capsys.readouterr().err


def test_the_ranking_probes_run_on_what_was_stored(measured, capsys):
    config, _devset = measured
    assert ranking_probes_cli.main(["--config", str(config), "--probes", "files", "recency", "literals"]) == 0
    out = capsys.readouterr().out
    assert "12 cases; symbol hit at k = 1/3/5/10" in out and "reference: the shipped features, listwise" in out
    assert "files: + the definitions of the 5 best files" in out and "recency: + changes decayed over 30 commits" in out
    assert 'literals: {"cases": 12' in out


def test_a_work_tree_is_laid_out_without_the_blobs_a_clone_lacks(tmp_path, caplog):
    repo = new_repo(tmp_path / "r")
    first = commit_files(repo, {"pkg/a.py": "A = 1\n", "pkg/data/big.dat": "x" * 1000}, "one")
    second = commit_files(repo, {"pkg/a.py": "A = 2\n", "pkg/b.py": "B = 1\n"}, "two")
    blob = git(repo, "rev-parse", f"{second}:pkg/data/big.dat")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as a snapshot without its largest files
    work = tmp_path / "work"
    with caplog.at_level(logging.WARNING):
        move_work_tree(repo / ".git", work, first)
    assert (work / "pkg" / "a.py").read_text() == "A = 1\n" and not (work / "pkg" / "data" / "big.dat").exists()
    assert "without 1 files the clone lacks: pkg/data/big.dat" in caplog.text
    move_work_tree(repo / ".git", work, second)
    assert sorted(p.name for p in (work / "pkg").glob("*.py")) == ["a.py", "b.py"]
    assert (work / "pkg" / "a.py").read_text() == "A = 2\n"
    with pytest.raises(SwevisError, match="cannot lay out"):
        move_work_tree(repo / ".git", work, "0" * 40)


def test_a_case_not_prepared_is_a_one_line_error(tmp_path):
    case = {"case_id": "me__x-1", "repo": "me/x", "mirror": "me+x", "base_commit": "0" * 40, "committed": "1"}
    with pytest.raises(SwevisError, match="me__x-1: not prepared under .*swevis devset prepare first"):
        measure_cases([case], tmp_path / "mirrors", tmp_path / "work")
    with pytest.raises(SwevisError, match="no case results under"):
        load_results(tmp_path / "work")


def test_languages_and_a_polyglot_fit_run_over_every_languages_cases(measured, capsys, tmp_path):
    """`swevis devset languages` and `fit --polyglot` with the lists' mined_polyglot.csv: me/figs's
    cases listed there as Go fixes rank as another language, held out like the others."""
    import shutil

    from swevis.localize.devset.caselists import POLYGLOT_FIELDS

    config, devset = measured
    lists = tmp_path / "lists"
    shutil.copytree(devset["lists"], lists)
    files = case_files(lists)
    figs = [{**c, "language": "go"} for c in read_cases(files) if c["repo"] == "me/figs"]
    write_cases(files.polyglot, figs, POLYGLOT_FIELDS)
    own = tmp_path / "devset.yaml"
    own.write_text(yaml.safe_dump({"devset": {**devset, "lists": str(lists)}}))
    assert main(["devset", "languages", "--config", str(own), "--history-depth", "50"]) == 0
    out = capsys.readouterr().out
    assert "the release's weights replay 12 of 12 cases' top 10 files exactly" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert lines["go"].split()[1] == "4" and lines["python"].split()[1] == "8" and lines["all"].split()[1] == "12"
    assert "fit: python" in out and "fit: all" in out
    weights = tmp_path / "w.json"
    assert main(["devset", "fit", "--config", str(own), "--polyglot", "--weights", str(weights),
                 "--history-depth", "50"]) == 0
    model = json.loads(weights.read_text())
    assert "mined_polyglot" in model["sources"] and len(model["fitted_on"]) == 12
