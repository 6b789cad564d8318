"""Narrow params, proven: after a completed run of a small study, changing one config key
plans exactly the rules tests/fixtures/rerun_table.yaml names for it (a dry run with the
profiles' rerun triggers, mtime, params and input). Every leaf key of the schema is in the
table, as the representative of its group or in the group (keys passed to the same rules'
params together), so a new key must be placed there to pass."""

import re
from pathlib import Path

import pytest
import yaml

from swevis.config import SCHEMA_PATH

from helpers import FIXTURES, PROJECT_ROOT
from helpers import run_snakemake as snakemake

TABLE = yaml.safe_load((FIXTURES / "rerun_table.yaml").read_text())
# `*` of a map key: the study's profile / variant / Prometheus ablation
WILDCARD = {"models": "q", "variants": "let-mem", "ablations": "prometheus-nomem"}


def schema_leaves(node: dict, prefix: str = "") -> set[str]:
    """Dotted leaf keys of the config schema; `*` stands for a profile or variant name."""
    if node.get("type") == "object" and "properties" in node:
        return set().union(*(schema_leaves(sub, f"{prefix}{k}.") for k, sub in node["properties"].items()))
    if node.get("type") == "object" and isinstance(node.get("additionalProperties"), dict):
        return schema_leaves(node["additionalProperties"], f"{prefix}*.")
    return {prefix.rstrip(".")}


def changed_study(key: str, value) -> dict:
    """The study with one dotted key set (`*`: the study's profile or variant)."""
    study = yaml.safe_load(TABLE["study"])
    parts = key.split(".")
    node = study
    names = [WILDCARD[parts[i - 1]] if p == "*" else p for i, p in enumerate(parts)]
    for name in names[:-1]:
        node = node.setdefault(name, {})
    node[names[-1]] = value
    return study


def planned(workdir: Path, entry: dict) -> dict[str, int]:
    """{rule: jobs} a dry run plans after the entry's change (`all` left out); the changed
    study is given as --configfile (it replaces config.yaml)."""
    args = ["all", "-n", "--nolock", "--rerun-triggers", "mtime", "params", "input"]
    if "key" in entry:
        changed = workdir / "changes" / f"{entry['key']}.yaml"
        changed.parent.mkdir(exist_ok=True)
        changed.write_text(yaml.safe_dump(changed_study(entry["key"], entry["value"])))
        args += ["--configfile", str(changed)]
    proc = snakemake(workdir, *args)
    assert proc.returncode == 0, (entry, (proc.stdout + proc.stderr)[-3000:])
    out = proc.stdout + proc.stderr
    if "Nothing to be done" in out:
        return {}
    stats = out.split("Job stats:", 1)[1].split("\ntotal", 1)[0]
    jobs = dict((r, int(n)) for r, n in re.findall(r"^(\w+)\s+(\d+)$", stats, re.M))
    jobs.pop("all", None)
    return jobs


def test_the_table_covers_every_key_of_the_schema():
    leaves = schema_leaves(yaml.safe_load(SCHEMA_PATH.read_text()))
    listed = [k for e in TABLE["changes"] for k in [e["key"], *e.get("group", [])]]
    assert sorted(set(listed) - leaves) == [], "not keys of the schema"
    assert sorted(leaves - set(listed)) == [], "schema keys missing from tests/fixtures/rerun_table.yaml"
    assert len(listed) == len(set(listed)), "a key listed twice"


def rerun_table_markdown() -> str:
    """docs/reruns.md's rerun table, rendered from the fixture (so the two cannot drift apart)."""
    def reruns(r: dict | None) -> str:
        return ", ".join(f"{k}×{v}" if v != 1 else k for k, v in sorted((r or {}).items())) or "nothing"

    rows = ["| change (and the keys passed with it) | reruns |", "|---|---|"]
    for e in TABLE["changes"]:
        more = f" (+{len(e['group'])} keys)" if e.get("group") else ""
        rows.append(f"| `{e['key']}`{more} | {reruns(e['reruns'])} |")
    return "\n".join(rows)


def test_the_docs_show_the_rerun_table():
    assert rerun_table_markdown() in (PROJECT_ROOT / "docs" / "reruns.md").read_text(), (
        "docs/reruns.md's rerun table differs from tests/fixtures/rerun_table.yaml; paste:\n" + rerun_table_markdown()
    )


@pytest.fixture(scope="module")
def completed(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("reruns")
    (work / "config.yaml").write_text(TABLE["study"])
    proc = snakemake(work, "all")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return work


@pytest.mark.slow
def test_each_key_reruns_exactly_the_rules_that_read_it(completed: Path):
    assert planned(completed, {}) == {}, "the completed study is not up to date"
    got = [planned(completed, e) for e in TABLE["changes"]]  # Snakemake forked: 0.7 CPU s each
    wrong = {
        e["key"]: {"expected": e["reruns"], "planned": jobs}
        for e, jobs in zip(TABLE["changes"], got)
        if jobs != (e["reruns"] or {})
    }
    assert not wrong, yaml.safe_dump(wrong, sort_keys=False)
