"""Fetch the three public trajectory sets of other agents and models that
docs/counterfactual.md (Page families) reads history pages on, outside SWE-bench Verified.

Downloads (git, from GitHub) each source repository at a pinned commit into --work, and writes
one folder a set under OUT, in the layout `swevis replay` and the page benchmarks read:

- `deepseek_reasoner_dev`: mini-swe-agent 2.2.7 with deepseek-reasoner on SWE-bench Lite dev
  (`output/deepseek_reasoner_dev` of mini-swe-agent's history), the trajectories with model
  calls, one `<instance>/<instance>.traj.json` each;
- `sweagent`: SWE-agent's `.traj` files of a run folder under `trajectories/demonstrations/`
  or `tests/test_data/trajectories/` (no `ctf/`), each named by the last 120 characters of its
  path with `/` as `_`;
- `openhands`: OpenHands with Llama 4 Maverick on three Multi-SWE-bench instances (one line
  of `evaluation/benchmarks/multi_swe_bench/examples/output.jsonl` a file, `oh_<line>.json`).

A trajectory of a SWE-bench Verified instance (tests/fixtures/swebench/verified_ids.csv) is
never written. Nothing here is kept in the repository.

    .venv/bin/python benchmarks/fetch_trajectory_sets.py OUT [--work DIR] [--source NAME=URL]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from swevis.counterfactual.formats import TrajectoryFormatError, read_trajectory

PROJECT_ROOT = Path(__file__).resolve().parents[2]
VERIFIED = PROJECT_ROOT / "tests" / "fixtures" / "swebench" / "verified_ids.csv"


@dataclass(frozen=True)
class Source:
    """One set: the repository it comes from, the commit, and how its files become trajectories."""

    name: str
    url: str
    commit: str
    files: Callable[[list[str]], list[str]]  # the repository paths the set reads, of all at the commit
    trajectories: Callable[[str, bytes], Iterator[tuple[str, bytes]]]  # (name under the set, content) per path


def _under(paths: list[str], folder: str, depth: int, suffix: str) -> list[str]:
    """The paths `depth` folders below `folder` that end with `suffix`."""
    prefix = folder.rstrip("/").split("/")
    return [p for p in paths if p.endswith(suffix) and p.split("/")[: len(prefix)] == prefix
            and len(p.split("/")) == len(prefix) + depth + 1]


def _mini(path: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    instance = path.rsplit("/", 2)[-2]
    yield f"{instance}/{instance}.traj.json", data


def _sweagent(path: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    yield path[-120:].replace("/", "_"), data


def _openhands(path: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    for i, line in enumerate(line for line in data.splitlines() if line.strip()):
        yield f"oh_{i}.json", json.dumps(json.loads(line)).encode()


SOURCES = (
    Source("deepseek_reasoner_dev", "https://github.com/SWE-agent/mini-swe-agent",
           "ec0e8e849fea5b1619deb1753007201000904672",
           lambda paths: _under(paths, "output/deepseek_reasoner_dev", 1, ".traj.json"), _mini),
    Source("sweagent", "https://github.com/SWE-agent/SWE-agent", "3ea751c087f32b16e039a2233dd6eefecef325d5",
           lambda paths: _under(paths, "trajectories/demonstrations", 1, ".traj")
           + _under(paths, "tests/test_data/trajectories", 1, ".traj"), _sweagent),
    Source("openhands", "https://github.com/All-Hands-AI/OpenHands", "3d22520992ea4a65c183376e8568bad6d4dedeec",
           lambda paths: [p for p in paths if p == "evaluation/benchmarks/multi_swe_bench/examples/output.jsonl"],
           _openhands),
)


def _git(*args: str, cwd: Path | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


def checkout(source: Source, url: str, work: Path) -> Path:
    """A clone of `url` holding `source.commit` (blobs fetched when read), reused when present."""
    repo = work / source.name
    if not (repo / "HEAD").exists():
        _git("clone", "--bare", "--filter=blob:none", url, str(repo))
    try:
        _git("cat-file", "-e", f"{source.commit}^{{commit}}", cwd=repo)
    except subprocess.CalledProcessError:
        _git("fetch", "origin", source.commit, cwd=repo)
    return repo


def verified_ids() -> set[str]:
    with VERIFIED.open() as f:
        return {row["instance_id"] for row in csv.DictReader(f)}


def write_set(source: Source, repo: Path, out: Path, verified: set[str]) -> tuple[int, int]:
    """The set's trajectories under `out/<name>`: (written, left out: no model calls or Verified)."""
    paths = _git("ls-tree", "-r", "--name-only", source.commit, cwd=repo).decode().splitlines()
    folder = out / source.name
    written = left = 0
    for path in source.files(paths):
        for name, data in source.trajectories(path, _git("show", f"{source.commit}:{path}", cwd=repo)):
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            try:
                keep = read_trajectory(target).instance_id not in verified
            except TrajectoryFormatError:
                keep = False  # no model calls recorded: nothing to replay
            if keep:
                written += 1
            else:
                target.unlink()
                if target.parent != folder and not any(target.parent.iterdir()):
                    target.parent.rmdir()
                left += 1
    return written, left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the folder the three sets are written under")
    parser.add_argument("--work", default=".swevis-cache/trajectory-sets", help="where the clones are kept")
    parser.add_argument("--source", action="append", default=[], metavar="NAME=URL",
                        help="clone a set's repository from URL instead (a local clone, a mirror)")
    args = parser.parse_args(argv)
    urls = {s.name: s.url for s in SOURCES}
    for item in args.source:
        name, _, url = item.partition("=")
        if name not in urls or not url:
            print(f"error: --source {item!r}: NAME is one of {', '.join(urls)}", file=sys.stderr)
            return 2
        urls[name] = url
    work, out = Path(args.work), Path(args.out)
    work.mkdir(parents=True, exist_ok=True)
    verified = verified_ids()
    for source in SOURCES:
        written, left = write_set(source, checkout(source, urls[source.name], work), out, verified)
        print(f"{source.name}: {written} trajectories ({left} left out: no model calls, or a Verified instance)")
    return 0
