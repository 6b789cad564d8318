"""The agent registry: the built-in agents' declarations, the one-line errors for names it
does not know, and an agent added by a module of agents.modules, which the CLI runs and the
workflow plans like a built-in one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from helpers import PROJECT_ROOT

from swevis.agents import registry
from swevis.agents.registry import AgentKind, agent_kind, find_kind, load_modules
from swevis.config import validate_config
from swevis.errors import SwevisError
from swevis.workflow import check_study

IID = "swevis-samples__tabulon-305"
DEMOS = PROJECT_ROOT / "src" / "swevis" / "data" / "demos"
# A toy agent: mini's loop under another name, declared as a study's own module would.
TOY_MODULE = textwrap.dedent(
    """
    from swevis.agents.builtin import mini
    from swevis.agents.registry import AgentKind

    AGENT = AgentKind(name="toy", title="Toy", run=mini.run, phases=("main",), tools=("bash",))
    """
)


def test_the_built_in_agents_declare_what_the_workflow_asks():
    assert registry.names()[:3] == ["mini", "plb", "let"]
    assert agent_kind("plb").needs_preloc and agent_kind("plb").needs_index
    assert not agent_kind("mini").needs_index and not agent_kind("mini").needs_preloc
    let = agent_kind("let")
    assert let.commits_plan and let.evidence_phases == ("locator",) and let.takes_variants
    assert agent_kind("let-mem") is let  # a variant runs as its base
    assert registry.variant_bases() == ["let", "prometheus"] and registry.preloc_agent() == "plb"
    # where each names its variants: LET's in agents.variants, Prometheus's inside its own section
    assert let.variants_at == "variants" and agent_kind("prometheus").variants_at == "prometheus.ablations"
    assert agent_kind("prometheus-nomem") is agent_kind("prometheus")
    assert {name: kind.name for name, kind in registry.action_figures().items()} == {
        "figure2.png": "mini", "figure4.png": "plb", "figure5.png": "let"}


def test_every_declared_prompt_template_exists():
    prompts = PROJECT_ROOT / "src" / "swevis" / "prompts"
    for kind in registry.kinds():
        for name in kind.prompts:
            assert (prompts / f"{name}.jinja").is_file(), (kind.name, name)


@pytest.mark.parametrize(
    "name, message",
    [("nope", "unknown agent 'nope': one of mini, plb, let"), ("mini-fast", "agent 'mini-fast': mini takes no variants")],
)
def test_an_unknown_agent_or_variant_is_one_line(name, message):
    with pytest.raises(SwevisError, match=message):
        agent_kind(name)
    assert find_kind(name) is None


def test_a_name_with_a_dash_or_a_taken_name_is_refused():
    with pytest.raises(SwevisError, match="lower-case letters"):
        AgentKind(name="my-agent", title="x", run=lambda run: ({}, None), phases=("main",))
    with pytest.raises(SwevisError, match="variants_at 'mine.ablations' is a key of config agents, or <one of its config_keys>"):
        AgentKind(name="mine", title="x", run=lambda run: ({}, None), phases=("main",), variants_at="mine.ablations")
    with pytest.raises(SwevisError, match="registered twice"):
        registry.register(AgentKind(name="mini", title="x", run=lambda run: ({}, None), phases=("main",)))


def test_a_variant_runs_with_its_entry_where_its_base_reads_it():
    agents = validate_config({"agents": {"variants": {"let-mem": {"memory": True}},
                                         "prometheus": {"ablations": {"prometheus-single": {"candidates": 1}}}}})["agents"]
    assert list(registry.configured_variants(agents)) == ["let-mem", "prometheus-single"]
    assert registry.variant_config(agents, "let") == {} and registry.variant_config(agents, "prometheus") == {}
    assert registry.variant_config(agents, "let-mem") == {"variant": agents["variants"]["let-mem"]}
    single = registry.variant_config(agents, "prometheus-single")["prometheus"]
    assert single["candidates"] == 1 and "ablations" not in single
    assert {k: v for k, v in single.items() if k != "candidates"} == {
        k: v for k, v in agents["prometheus"].items() if k not in ("candidates", "ablations")}
    with pytest.raises(SwevisError, match="unknown agent 'prometheus-nope': not a configured variant"):
        registry.variant_config(agents, "prometheus-nope")


@pytest.mark.parametrize(
    "extra, message",
    [
        ("agents: {matrix: [{agent: nope, scope: normal, conditions: [text]}]}",
         "config key 'agents/matrix/0/agent': unknown agent 'nope'"),
        ("agents: {variants: {plb-fast: {}}}", "config key 'agents/variants/plb-fast': 'plb' is no agent that takes variants"),
        ("agents: {modules: [no_such_module_here]}", "config key 'agents/modules': cannot import agent module 'no_such_module_here'"),
        ("agents: {modules: [json]}", "config key 'agents/modules': module 'json' defines no AGENT"),
        ("analysis: {table3_agent: plb}", "config key 'analysis/table3_agent': 'plb' commits no plan"),
    ],
)
def test_the_study_check_names_the_key(extra, message):
    cfg = validate_config({"models": {"m": {}}, **yaml.safe_load(extra)})
    with pytest.raises(SwevisError, match=message):
        check_study(cfg)


@pytest.fixture
def toy_study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str]]:
    """A study whose matrix runs the toy agent (module toy_agent on PYTHONPATH), playing back a
    copy of mini's demonstration as the toy's own."""
    (tmp_path / "toy_agent.py").write_text(TOY_MODULE)
    demos = tmp_path / "demos"
    (demos / "toy").mkdir(parents=True)
    demo = yaml.safe_load((DEMOS / "mini" / f"{IID}.yaml").read_text())
    (demos / "toy" / f"{IID}.yaml").write_text(yaml.safe_dump({**demo, "agent": "toy"}))
    study = {
        "tasks": {"source": "bundled", "instance_ids": [IID]},
        "models": {"q": {"backend": "playback", "model_id": "q", "tokenizer": "qwen3", "image_family": "qwen3.5"}},
        "agents": {"modules": ["toy_agent"], "demos_dir": str(demos),
                   "matrix": [{"agent": "toy", "scope": "normal", "conditions": ["text", "r3"]}]},
        "analysis": {"baseline": {"agent": "toy", "scope": "normal", "condition": "text"}},
        "single_read": {"backbones": ["q"]},
    }
    (tmp_path / "study.yaml").write_text(yaml.safe_dump(study))
    monkeypatch.syspath_prepend(str(tmp_path))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           "HF_DATASETS_OFFLINE": "1"}
    return tmp_path, env


def test_an_agent_module_registers_its_agent(toy_study):
    load_modules(["toy_agent"])
    assert agent_kind("toy").title == "Toy" and "toy" in registry.names()
    cfg = validate_config(yaml.safe_load((toy_study[0] / "study.yaml").read_text()))
    check_study(cfg)  # the matrix may name it


@pytest.mark.slow
def test_the_workflow_plans_and_the_cli_runs_an_agent_from_a_module(toy_study):
    folder, env = toy_study
    snakemake = str(Path(sys.executable).parent / "snakemake")
    plan = subprocess.run(
        [snakemake, "-n", "--cores", "1", "--configfile", str(folder / "study.yaml"), "--config",
         f"results_dir={folder}/results", "--", "all"],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    out = plan.stdout + plan.stderr
    assert plan.returncode == 0, out[-3000:]
    # the sampling checkpoint stops the plan above the runs: the toy's conditions are planned
    assert f"{folder}/results/runs/q/toy-normal/r3/summary.json" in out and "agent=toy" in out
    assert "agent=plb" not in out and "rule prelocalize" not in out  # the toy needs no pre-localization

    swevis = shutil.which("swevis", path=str(Path(sys.executable).parent))
    run = subprocess.run(
        [swevis, "agent", "run", "--config", str(folder / "study.yaml"), "--agent", "toy", "--instance", IID,
         "--condition", "r3", "--cache", str(folder / "cache"), "-o", str(folder / "out")],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    traj = json.loads((folder / "out" / "traj.json").read_text())
    assert traj["agent"] == "toy" and traj["condition"] == "r3" and traj["exit_status"] == "submitted"
    assert traj["phase_exit_status"] == {"main": "submitted"}
    assert (folder / "out" / "patch.diff").read_text().startswith("diff --git")
