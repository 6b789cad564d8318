"""The agents and models packages read in one sitting: settings from the schema only, one
RunSpec constructor and one playback-or-live decision, and the baseline never loads ablation
code. The source rules for the whole package (short functions, no defaults dicts, no private
names across modules) are in tests/test_structure.py."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from swevis.agents.mechanisms.memory import MemorySettings
from swevis.agents.run.runner import RunSpec, make_run_spec
from swevis.agents.run.spec import RunInputs
from swevis.agents.settings import AgentSettings, RunFolders
from swevis.agents.builtin.let_variants import VariantSettings, variant_flags
from swevis.config import SCHEMA_PATH
from swevis.models import is_live
from swevis.paths import ResultsLayout, RunKey

ROOT = Path(__file__).resolve().parents[2]
AGENTS_SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())["properties"]["agents"]["properties"]
ROW = {"instance_id": "o__r-1", "repo": "o/r", "base_commit": "0" * 40, "problem_statement": "p"}


def test_agent_settings_are_the_schema_defaults():
    for cls in (AgentSettings, RunFolders):
        settings = cls.from_config({})
        for f in dataclasses.fields(cls):
            default = AGENTS_SCHEMA[f.name]["default"]
            value = getattr(settings, f.name)
            assert (list(value) if isinstance(value, tuple) else value) == default, f.name
    assert AgentSettings.from_config({"wide_margin": 15, "variant": {"memory": True}}).wide_margin == 15


def test_variant_and_memory_settings_are_the_schema_defaults():
    entry = AGENTS_SCHEMA["variants"]["additionalProperties"]["properties"]
    flags = variant_flags("let", {})
    assert isinstance(flags, VariantSettings)
    assert {f.name: getattr(flags, f.name) for f in dataclasses.fields(VariantSettings)} == {
        k: v["default"] for k, v in entry.items()
    }
    memory = AGENTS_SCHEMA["memory"]["properties"]
    settings = MemorySettings.from_config({"weights": {"essential": 0.5}})
    assert settings.weights == {**memory["weights"]["default"], "essential": 0.5}
    assert (settings.threshold, settings.embedding, settings.semantic) == (
        memory["threshold"]["default"], memory["embedding"]["default"], memory["semantic"]["default"]
    )


def test_the_baseline_runner_never_imports_ablation_code():
    code = (
        "import sys, swevis.agents.run.runner, swevis.agents.run.cli; "
        "print(sorted(m for m in ('swevis.agents.builtin.let_variants', 'swevis.agents.mechanisms.memory', 'swevis.agents.mechanisms.embedding') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_playback_or_live_is_decided_by_the_profile_with_its_schema_default():
    assert is_live({"backend": "openai", "model_id": "m"}) is True
    assert is_live({"backend": "playback"}) is False
    assert is_live({}) is False  # the schema's backend is playback
    spec = RunSpec("m", {}, "mini", "normal", "text", ROW, "mirror", "out")
    assert spec.live is False


def test_make_run_spec_puts_journal_ledger_and_workspace_where_the_layout_says(tmp_path):
    agents = {"journal_dir": "j", "ledger_dir": "l", "workspace_dir": "w", "cache_dir": "c", "top_k": 3}
    common = dict(agent="let", scope="wide", condition="r3", out_dir=str(tmp_path))
    live = make_run_spec(RunInputs("m", {"backend": "openai", "model_id": "x"}, ROW, "mirror", agents_cfg=agents),
                         repeat=2, **common)
    layout = ResultsLayout()
    assert live.playback_source is None and live.settings.top_k == 3
    assert live.journal_path == "j/m/let-wide/r3/o__r-1.repeat-2.jsonl"
    assert live.journal_path == layout.run_journal("j", RunKey("m", "let", "wide", "r3", "o__r-1", 2))
    assert live.ledger_path == "l/m/let-wide/r3.json"
    assert live.cache_dir == "c/repeat-2"  # a repeat asks the model again
    assert live.workspace == layout.run_workspace("w", RunKey("m", "let", "wide", "r3", "o__r-1", 2))
    assert Path(live.workspace).parent == Path("w") and len(Path(live.workspace).name) == 8
    playback = make_run_spec(RunInputs("m", {}, ROW, "mirror", agents_cfg=agents), demo="demo.yaml", **common)
    assert playback.playback_source == "demo.yaml" and playback.cache_dir == "c"
    assert playback.journal_path == "j/m/let-wide/r3/o__r-1.jsonl"
