"""swevis_dev.trajectory_sets (benchmarks/fetch_trajectory_sets.py) on a local repository: a set
is the trajectories its paths select at the commit, in the layout the replay reads, without
those of no model calls or of a SWE-bench Verified instance."""

import json
import subprocess
from pathlib import Path

from swevis_dev import trajectory_sets as sets

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "swevis" / "data" / "trajectories" / "mini2__swevis-samples__ledgerkit-117.traj.json"


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def repository(tmp_path: Path, files: dict[str, bytes]) -> tuple[str, str]:
    """A repository holding `files` in one commit: (its path, the commit)."""
    repo = tmp_path / "upstream"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    git("add", "-A", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "sets", cwd=repo)
    return str(repo), git("rev-parse", "HEAD", cwd=repo)


def test_a_set_keeps_the_trajectories_with_model_calls_outside_verified(tmp_path):
    sample = json.loads(SAMPLE.read_text())
    verified = next(iter(sorted(sets.verified_ids())))
    no_calls = {**sample, "messages": sample["messages"][:2]}
    url, commit = repository(tmp_path, {
        "output/run/a__a-1/a__a-1.traj.json": SAMPLE.read_bytes(),
        f"output/run/{verified}/{verified}.traj.json": SAMPLE.read_bytes().replace(
            b"swevis-samples__ledgerkit-117", verified.encode()),
        "output/run/b__b-2/b__b-2.traj.json": json.dumps(no_calls).encode(),
        "output/run/preds.json": b"{}",
        "output/other/c__c-3/c__c-3.traj.json": SAMPLE.read_bytes(),
    })
    source = sets.Source("mini_set", url, commit, lambda paths: sets._under(paths, "output/run", 1, ".traj.json"),
                         sets._mini)
    repo = sets.checkout(source, url, tmp_path / "work")
    written, left = sets.write_set(source, repo, tmp_path / "out", {verified})
    assert (written, left) == (1, 2)
    assert [p.relative_to(tmp_path / "out").as_posix() for p in sorted((tmp_path / "out").rglob("*")) if p.is_file()] == [
        "mini_set/a__a-1/a__a-1.traj.json"]
    assert sorted(p.name for p in (tmp_path / "out" / "mini_set").iterdir()) == ["a__a-1"]  # no empty folder left


def test_an_openhands_output_is_one_file_a_line_and_a_bad_source_is_refused(capsys):
    lines = b'{"instance_id": "x", "history": []}\n\n{"instance_id": "y"}\n'
    assert [name for name, _ in sets._openhands("output.jsonl", lines)] == ["oh_0.json", "oh_1.json"]
    assert sets.main(["out", "--source", "nowhere=https://example.invalid"]) == 2
    assert "NAME is one of deepseek_reasoner_dev, sweagent, openhands" in capsys.readouterr().err
