"""The ablation's variants in the workflow: LET's (agents.variants) and Prometheus's
(agents.prometheus.ablations) are found through the registry, each runs beside its base agent
under agents.ablation, an override a Prometheus ablation makes is checked against
agents.prometheus, and a small study plans every ablation cell and the ablation table."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from helpers import run_snakemake
from swevis.config import ConfigError, validate_config
from swevis.workflow import ablation_bases, ablation_cells, agent_variants, check_study

IID = "swevis-samples__tabulon-311"
ABLATIONS = {"prometheus-nomem": {"memory": False}, "prometheus-norepro": {"reproduction": False},
             "prometheus-noreg": {"regression": False}, "prometheus-single": {"candidates": 1}}
STUDY = {
    "tasks": {"source": "bundled", "instance_ids": [IID]},
    "models": {"q": {"backend": "playback", "model_id": "q", "tokenizer": "qwen3", "image_family": "qwen3.5"}},
    "single_read": {"backbones": ["q"]},
    "agents": {
        "matrix": [{"agent": "mini", "scope": "normal", "conditions": ["text"]},
                   {"agent": "let", "scope": "normal", "conditions": ["text"]},
                   {"agent": "prometheus", "scope": "normal", "conditions": ["text"]}],
        "variants": {"let-mem": {"memory": True}},
        "prometheus": {"ablations": ABLATIONS},
        "ablation": {"conditions": ["text"]},
    },
}


def _config(**agents) -> dict:
    study = copy.deepcopy(STUDY)
    study["agents"].update(agents)
    return validate_config(study)


def test_every_variant_is_found_where_its_base_names_it():
    config = _config()
    check_study(config)
    variants = agent_variants(config)
    assert list(variants) == ["let-mem", *ABLATIONS]
    assert variants["let-mem"][0] == "let" and variants["let-mem"][1]["memory"] is True
    assert {name: variants[name] for name in ABLATIONS} == {n: ("prometheus", e) for n, e in ABLATIONS.items()}
    assert ablation_bases(config) == ["let", "prometheus"]
    # each base's cell, then its variants'
    assert [agent for _, agent, _, _ in ablation_cells(config)] == ["let", "let-mem", "prometheus", *ABLATIONS]


def test_an_agent_of_agent_conditions_runs_its_variants_under_those_conditions_only():
    matrix = [{"agent": "mini", "scope": "normal", "conditions": ["text"]},
              {"agent": "let", "scope": "normal", "conditions": ["text", "r3"]},
              {"agent": "prometheus", "scope": "normal", "conditions": ["text", "r3"]}]
    config = _config(matrix=matrix, ablation={"conditions": ["text", "r3"], "agent_conditions": {"prometheus": ["text"]}})
    check_study(config)
    cells = {(agent, condition) for _, agent, _, condition in ablation_cells(config)}
    assert {c for a, c in cells if a.startswith("let")} == {"text", "r3"}
    assert {c for a, c in cells if a.startswith("prometheus")} == {"text"}
    assert {a for a, _ in cells} == {"let", "let-mem", "prometheus", *ABLATIONS}


@pytest.mark.parametrize(
    "agents, message",
    [
        ({"ablation": {"conditions": ["text"], "agent_conditions": {"plb": ["text"]}}},
         "config key 'agents/ablation/agent_conditions': 'plb' is no agent with variants (those with variants: let, prometheus)"),
        ({"ablation": {"conditions": ["text"], "agent_conditions": {"prometheus": ["r3"]}}},
         "config key 'agents/ablation/agent_conditions/prometheus': 'r3' is not a condition of the prometheus normal cell"),
        ({"prometheus": {"ablations": {"prometheus-x": {"memroy": False}}}},
         "config key 'agents/prometheus/ablations/prometheus-x/memroy': not a key of agents.prometheus (aggregation, "),
        ({"prometheus": {"ablations": {"prometheus-x": {"candidates": 0}}}},
         "config key 'agents/prometheus/ablations/prometheus-x/candidates': 0 must be at least 1"),
        ({"prometheus": {"ablations": {"prometheus-x": {"memory": "off"}}}},
         "config key 'agents/prometheus/ablations/prometheus-x/memory': 'off' is not of type 'boolean'"),
        ({"prometheus": {"ablations": {"prometheus-x": {"ablations": {}}}}},
         "config key 'agents/prometheus/ablations/prometheus-x/ablations': not a key of agents.prometheus"),
        ({"variants": {"prometheus-x": {}}},
         "config key 'agents/variants/prometheus-x': prometheus's variants are named in agents.prometheus.ablations"),
        ({"variants": {"plb-fast": {}}}, "config key 'agents/variants/plb-fast': 'plb' is no agent that takes variants"),
        ({"matrix": [{"agent": "let", "scope": "normal", "conditions": ["text"]}]},
         "config key 'agents/ablation/scopes': 'normal' has no prometheus cell in agents.matrix"),
    ],
)
def test_a_bad_variant_is_one_line_naming_its_key(agents, message):
    with pytest.raises(ConfigError, match=re.escape(message)) as err:
        check_study(_config(**agents))
    assert "\n" not in str(err.value)


def test_a_prometheus_ablation_name_is_checked_by_the_schema():
    with pytest.raises(ConfigError, match="config key 'agents/prometheus/ablations': \"let-x\" is not a Prometheus ablation name"):
        _config(prometheus={"ablations": {"let-x": {}}})


def _job_stats(out: str) -> dict[str, int]:
    stats = out.split("Job stats:", 1)[1].split("\ntotal", 1)[0]
    return {rule: int(n) for rule, n in re.findall(r"^(\w+)\s+(\d+)$", stats, re.M)}


@pytest.mark.slow
def test_a_small_study_plans_every_ablation_cell_beside_its_base(tmp_path: Path):
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(STUDY, sort_keys=False))
    sampled = run_snakemake(tmp_path, "results/instances.jsonl", cores=1)
    assert sampled.returncode == 0, (sampled.stdout + sampled.stderr)[-3000:]
    plan = run_snakemake(tmp_path, "all", "-n", "--nolock")
    out = plan.stdout + plan.stderr
    assert plan.returncode == 0, out[-3000:]
    jobs = _job_stats(out)
    # mini, LET and Prometheus (the matrix), let-mem and the four Prometheus ablations
    assert jobs["run_condition"] == 3 + 1 + 4 and jobs["summarize_condition"] == 8 and jobs["ablation"] == 1
    for agent in ("prometheus", *ABLATIONS):
        assert f"results/runs/q/{agent}-normal/text/runs.json" in out, agent
        assert f"results/runs/q/{agent}-normal/text/summary.json" in out, agent
    # each plays back its own demonstration, and the files it is based on
    assert f"data/demos/prometheus-single/{IID}.yaml" in out and f"data/demos/prometheus/{IID}.yaml" in out
