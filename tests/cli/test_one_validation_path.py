"""`swevis estimate` and the workflow refuse the same configs with the same message, before
anything runs: an agent given a page family it cannot take, an ablation entry that is no
cell, an unknown task language, a cached price above the uncached one, an unknown prefix
cache family, a playback profile on a family only the config defines. The workflow's refusal comes while planning (`snakemake -n`)."""

import copy
from pathlib import Path

import pytest
import yaml

from swevis.cli import main

from helpers import PROJECT_ROOT, run_snakemake

BASE = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text())


def prometheus_hist(c):
    c["agents"]["matrix"][5]["conditions"] = ["text", "hist-r3"]


def wide_ablation(c):
    c["agents"]["ablation"]["scopes"] = ["wide"]


def unknown_language(c):
    c["tasks"]["languages"] = ["cobol"]


def cached_above_uncached(c):
    c["models"]["qwen3.5"]["cost_per_1k_cached_prompt"] = 0.001


def unknown_cache_family(c):
    c["models"]["qwen3.5"]["prompt_cache"] = "nope"


def playback_own_family(c):
    c["counterfactual"] = {"prompt_cache": {"qwen": {"min_tokens": 256, "block_tokens": 1},
                                            "kimi": {"min_tokens": 256, "block_tokens": 256},
                                            "mine": {"min_tokens": 64, "block_tokens": 1}}}
    c["models"]["qwen3.5"]["prompt_cache"] = "mine"


BAD = {
    prometheus_hist: "config key 'agents/matrix/5/conditions/1': agent prometheus takes no hist-rN condition (hist-r3)",
    wide_ablation: "config key 'agents/ablation/scopes': 'wide' has no prometheus cell in agents.matrix",
    unknown_language: "tasks.languages: cobol is not a language swevis can index",
    cached_above_uncached: "config key 'models/qwen3.5/cost_per_1k_cached_prompt': 0.001 is above cost_per_1k_prompt (0.0006)",
    unknown_cache_family: "config key 'models.qwen3.5.prompt_cache': 'nope' is no family of counterfactual.prompt_cache",
    playback_own_family: "config key 'models/qwen3.5/prompt_cache': playback bills with the schema's prefix cache families",
}


def bad_config(tmp_path: Path, change) -> Path:
    config = copy.deepcopy(BASE)
    change(config)
    path = tmp_path / f"{change.__name__}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("change", list(BAD), ids=lambda f: f.__name__)
def test_estimate_refuses_what_the_workflow_refuses_with_its_message(change, tmp_path, capsys):
    config = bad_config(tmp_path, change)
    assert main(["estimate", "--config", str(config), "--results", str(tmp_path)]) == 2
    assert BAD[change] in capsys.readouterr().err


@pytest.mark.slow
def test_the_workflow_refuses_the_same_configs_while_planning(tmp_path):
    for change, message in BAD.items():
        work = tmp_path / change.__name__
        work.mkdir()
        config = bad_config(tmp_path, change)
        plan = run_snakemake(work, "-n", "--configfile", str(config), "--", "results/table1.csv")
        said = plan.stdout + plan.stderr
        assert plan.returncode != 0 and message in said, (change.__name__, said[-2000:])
        assert sorted(p.name for p in work.iterdir()) in ([], [".snakemake"]), change.__name__  # no job, no journal
