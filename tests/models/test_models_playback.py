"""The playback backend: recorded assistant turns from demonstrations, our trajectories and
mini-swe-agent's .traj.json (built with mini-swe-agent's own DeterministicModel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import swevis
from swevis.models import (
    ModelConfigError,
    PlaybackExhausted,
    PlaybackModel,
    PlaybackSourceError,
    image_part,
    load_playback_source,
    make_model,
)
from scripted_server import ScriptedServer

from test_models_openai import KEY_ENV, SECRET, fake_estimator, fake_text_counter, png_bytes

PROFILE = {"backend": "playback", "model_id": "qwen3.5-397b-a17b", "tokenizer": "qwen3", "image_family": "qwen3.5"}
USER = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Fix the bug in ledgerkit."}]


def playback(source, **over):
    return make_model(
        "qwen3.5", PROFILE | over, playback_source=source, estimator=fake_estimator, text_counter=fake_text_counter
    )


# ------------------------------------------------------------------ (a) demonstrations


def test_demonstration_yaml_turns_in_order(tmp_path):
    demo = tmp_path / "demo.yaml"
    demo.write_text(
        yaml.safe_dump(
            {
                "format": "swevis-demo-1",
                "instance_id": "ledgerkit-1",
                "turns": [
                    "THOUGHT: look\n```bash\ngrep -rn round ledgerkit\n```",
                    {"content": "THOUGHT: read\n```bash\ncat x\n```"},
                ],
            }
        )
    )
    m = playback(demo)
    assert isinstance(m, PlaybackModel) and m.source.kind == "demonstration"
    first = m.complete(USER)
    second = m.complete(USER + [first.to_message(), {"role": "user", "content": "output"}])
    assert first.content.startswith("THOUGHT: look") and second.content.startswith("THOUGHT: read")
    with pytest.raises(PlaybackExhausted, match="ran out of assistant turns after 2"):
        m.complete(USER)


def test_playback_usage_is_estimated(tmp_path):
    m = playback(["one two three"])
    history = USER + [{"role": "user", "content": [{"type": "text", "text": "page"}, image_part(png_bytes())]}]
    u = m.complete(history).usage
    assert u.source == "estimate"
    assert u.prompt_tokens == u.estimated_prompt_tokens == fake_estimator(history, "qwen3", "qwen3.5")
    assert u.completion_tokens == u.estimated_completion_tokens == 3
    assert u.server_prompt_tokens is None


def test_playback_applies_the_image_cap_to_its_accounting():
    history = USER + [{"role": "user", "content": [image_part(png_bytes(), label=f"page {i}")]} for i in range(4)]
    capped = playback(["a"], max_images_per_request=1).complete(history)
    uncapped = playback(["a"]).complete(history)
    assert capped.meta["images_omitted"] == 3
    assert uncapped.usage.prompt_tokens - capped.usage.prompt_tokens == 3 * 100 - sum(
        len(f"[image omitted: page {i}, shown earlier]") // 4 for i in range(3)
    )


def test_demonstration_per_purpose_queues(tmp_path):
    demo = {"turns": {"preloc": ['{"package": "..."}'], "agent": ["step 1", "step 2"]}}
    m = playback(demo)
    assert m.complete(USER, purpose="agent").content == "step 1"
    assert m.complete(USER, purpose="preloc").content == '{"package": "..."}'
    assert m.complete(USER).content == "step 2"
    assert m.remaining("agent") == 0 and m.remaining("preloc") == 0
    with pytest.raises(PlaybackExhausted, match="for purpose 'preloc'"):
        m.complete(USER, purpose="preloc")
    with pytest.raises(PlaybackExhausted, match="no turns for purpose 'editor'"):
        m.complete(USER, purpose="editor")


def test_a_demonstration_based_on_another_replaces_only_its_own_purposes(tmp_path):
    (tmp_path / "let").mkdir()
    (tmp_path / "let-repro").mkdir()
    (tmp_path / "let" / "i.yaml").write_text(yaml.safe_dump({"turns": {"locator": ["L1"], "editor": ["E1", "E2"]}}))
    variant = tmp_path / "let-repro" / "i.yaml"
    variant.write_text(yaml.safe_dump({"based_on": "../let/i.yaml", "turns": {"reproduction": ["R1"], "editor": ["E9"]}}))
    src = load_playback_source(variant)
    by_purpose = {}
    for t in src.turns:
        by_purpose.setdefault(t.purpose, []).append(t.content)
    assert by_purpose == {"locator": ["L1"], "editor": ["E9"], "reproduction": ["R1"]}
    plain = tmp_path / "let-mem.yaml"
    plain.write_text(yaml.safe_dump({"based_on": "let/i.yaml"}))  # no turns of its own: the base's
    assert sorted(t.content for t in load_playback_source(plain).turns) == ["E1", "E2", "L1"]
    loop = tmp_path / "loop.yaml"
    loop.write_text(yaml.safe_dump({"based_on": "loop.yaml"}))
    with pytest.raises(PlaybackSourceError, match="based_on nested deeper"):
        load_playback_source(loop)
    missing = tmp_path / "orphan.yaml"
    missing.write_text(yaml.safe_dump({"based_on": "nowhere.yaml", "turns": {"editor": ["x"]}}))
    with pytest.raises(PlaybackSourceError, match="nowhere.yaml does not exist"):
        load_playback_source(missing)


def test_before_turns_go_ahead_of_the_bases_turns_of_their_purpose(tmp_path):
    (tmp_path / "let").mkdir()
    (tmp_path / "let" / "i.yaml").write_text(yaml.safe_dump({"turns": {"locator": ["L1"], "editor": ["E1", "E2"]}}))
    first = tmp_path / "prom.yaml"
    first.write_text(yaml.safe_dump({"based_on": "let/i.yaml", "turns": {"classify": ["C1"]},
                                     "before": {"editor": ["Q1"], "reproduction": ["R0"]}}))
    # a file based on it that replaces the editor's turns replaces the ones put before them too
    second = tmp_path / "second.yaml"
    second.write_text(yaml.safe_dump({"based_on": "prom.yaml", "turns": {"editor": ["E9"]}}))
    for path, editor in ((first, ["Q1", "E1", "E2"]), (second, ["E9"])):
        by_purpose = {}
        for t in load_playback_source(path).turns:
            by_purpose.setdefault(t.purpose, []).append(t.content)
        assert by_purpose["editor"] == editor and by_purpose["locator"] == ["L1"] and by_purpose["reproduction"] == ["R0"]
    alone = tmp_path / "alone.yaml"  # no base: before turns still lead their purpose
    alone.write_text(yaml.safe_dump({"turns": {"editor": ["E1"]}, "before": {"editor": ["Q1"]}}))
    assert [t.content for t in load_playback_source(alone).turns] == ["Q1", "E1"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"based_on": "let/i.yaml", "before": {"editor": "Q1"}}))
    with pytest.raises(PlaybackSourceError, match="before/editor must be a list"):
        load_playback_source(bad)


def test_untagged_turns_serve_other_purposes():
    m = playback([{"content": "plan", "purpose": "locator"}, "edit 1", "edit 2"])
    assert m.complete(USER, purpose="editor").content == "edit 1"
    assert m.complete(USER, purpose="locator").content == "plan"
    assert m.complete(USER, purpose="editor").content == "edit 2"


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"format": "other-9", "turns": ["x"]}, "unknown demonstration format"),
        ({"steps": ["x"]}, "needs a 'turns' key"),
        ({"turns": []}, "no turns"),
        ({"turns": [42]}, "turn 0 must be a string"),
        ({"messages": [{"role": "user", "content": "x"}]}, "no assistant messages"),
        ({"trajectory_format": "mini-swe-agent-1.1", "messages": "nope"}, "'messages' must be a list"),
    ],
)
def test_bad_sources_name_the_problem(tmp_path, data, match):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(PlaybackSourceError, match=match) as err:
        load_playback_source(path)
    assert str(path) in str(err.value)


def test_unreadable_source_names_the_file(tmp_path):
    with pytest.raises(PlaybackSourceError, match="does not exist"):
        load_playback_source(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.json"
    broken.write_text('{"turns": [')
    with pytest.raises(PlaybackSourceError, match="broken.json: cannot parse"):
        load_playback_source(broken)


def test_playback_without_a_source_is_a_config_error():
    with pytest.raises(ModelConfigError, match="needs a playback source"):
        make_model("qwen3.5", PROFILE)


# ------------------------------------------------------------------ (b) our trajectories


def test_swevis_trajectory(tmp_path):
    traj = {
        "format": "swevis-traj-1",
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": "pre-localization reply", "extra": {"purpose": "preloc"}},
            {"role": "assistant", "content": "THOUGHT\n```bash\nls\n```", "extra": {"purpose": "agent"}},
            {"role": "user", "content": [{"type": "text", "text": "observation"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "THOUGHT\n```bash\nsubmit\n```"}]},
        ],
        "usage": [],
    }
    path = tmp_path / "traj.json"
    path.write_text(json.dumps(traj))
    m = playback(path)
    assert m.source.kind == "swevis-trajectory"
    assert [t.content for t in m.source.turns] == [
        "pre-localization reply",
        "THOUGHT\n```bash\nls\n```",
        "THOUGHT\n```bash\nsubmit\n```",
    ]
    assert m.complete(USER, purpose="preloc").content == "pre-localization reply"
    assert m.complete(USER).content.endswith("ls\n```")
    with pytest.raises(PlaybackExhausted, match="for purpose 'agent'"):  # tagged queues do not spill over
        m.complete(USER)
    assert m.complete(USER, purpose="editor").content.endswith("submit\n```")  # untagged: purposes without a queue


# ------------------------------------------------------------------ (c) mini-swe-agent trajectories


def _run_minisweagent(tmp_path, outputs):
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.environments.local import LocalEnvironment
    from minisweagent.models.test_models import DeterministicModel

    out = tmp_path / "run" / "instance.traj.json"
    agent = DefaultAgent(
        DeterministicModel(outputs=outputs),
        LocalEnvironment(cwd=str(tmp_path)),
        system_template="You are a helpful assistant.",
        instance_template="Please solve this issue: {{task}}",
        step_limit=10,
        cost_limit=0,
        output_path=out,
    )
    info = agent.run("say hello")
    return out, info


def test_minisweagent_trajectory_made_by_its_own_agent(tmp_path):
    from minisweagent.models.test_models import make_output

    turns = [
        "THOUGHT: first look around.\n\n```mswea_bash_command\necho hello\n```",
        "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
    ]
    outputs = [
        make_output(turns[0], [{"command": "echo hello"}]),
        make_output(turns[1], [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}]),
    ]
    path, info = _run_minisweagent(tmp_path, outputs)
    assert info["exit_status"] == "Submitted"
    data = json.loads(path.read_text())
    assert data["trajectory_format"].startswith("mini-swe-agent")

    m = playback(path)
    assert m.source.kind == "mini-swe-agent-trajectory"
    assert [t.actions for t in m.source.turns] == [
        [{"command": "echo hello"}],
        [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}],
    ]
    # playback against the trajectory's own conversation: same turns, estimated usage
    history = [msg for msg in data["messages"] if msg["role"] in ("system", "user")][:2]
    r1 = m.complete(history)
    assert r1.content == turns[0] and r1.raw["actions"] == [{"command": "echo hello"}]
    assert r1.usage.source == "estimate" and r1.usage.prompt_tokens == fake_estimator(history, "qwen3", "qwen3.5")
    assert m.complete(history).content == turns[1]
    with pytest.raises(PlaybackExhausted):
        m.complete(history)


def test_minisweagent_toolcall_trajectory(tmp_path):
    from minisweagent.models.test_models import make_toolcall_output

    call = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "echo hi"}'}}
    traj = {
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "task"},
            make_toolcall_output(None, [call], [{"command": "echo hi", "tool_call_id": "call_1"}])
            | {"role": "assistant"},
            {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}},
        ],
    }
    m = playback(traj)
    r = m.complete(USER)
    assert r.content == "" and r.tool_calls == [call]
    assert r.to_message() == {"role": "assistant", "content": "", "tool_calls": [call]}
    assert r.usage.completion_tokens == fake_text_counter(json.dumps([call]), "qwen3")


# ------------------------------------------------------------------ playback then continue live


def test_fallback_continues_live_after_the_recorded_turns(monkeypatch, tmp_path):
    monkeypatch.setenv(KEY_ENV, SECRET)
    with ScriptedServer() as server:
        live = make_model(
            "live",
            {
                "backend": "openai",
                "model_id": "m",
                "base_url": server.base_url,
                "api_key_env": KEY_ENV,
                "retry_backoff_s": 0.01,
            },
            cache_dir=tmp_path / "cache",
            estimator=fake_estimator,
            text_counter=fake_text_counter,
        )
        m = PlaybackModel(
            "live",
            PROFILE,
            source=["recorded"],
            estimator=fake_estimator,
            text_counter=fake_text_counter,
            fallback=live,
        )
        assert m.complete(USER).content == "recorded"
        assert server.chat_requests == []
        resp = m.complete(USER)
        assert resp.content == "ok" and resp.usage.source == "server" and resp.meta["playback_fallback"] == "openai"
        assert len(server.chat_requests) == 1


def test_real_token_estimator_if_available():
    tokens = pytest.importorskip("swevis.tokens")
    if not hasattr(tokens, "count_message_tokens"):
        pytest.skip("swevis.tokens.count_message_tokens not there yet")
    m = make_model("qwen3.5", PROFILE, playback_source=["THOUGHT: hello\n```bash\nls\n```"])
    u = m.complete(USER).usage
    assert u.prompt_tokens > 0 and u.completion_tokens > 0 and u.source == "estimate"


def test_every_bundled_demonstration_reads_the_same_with_libyaml_as_with_pure_python(tmp_path):
    """Playback reads demonstrations with libyaml's loader (swevis.config.YAML_LOADER: every
    plan of the workflow reads them all); it must read exactly what PyYAML's own SafeLoader
    reads, and a file neither can read is named with PyYAML's message."""
    from swevis.config import YAML_LOADER
    from swevis.models.playback import _read_file

    if YAML_LOADER is yaml.SafeLoader:
        pytest.skip("PyYAML was built without libyaml: playback reads with the pure loader")
    files = sorted((Path(swevis.__file__).parent / "data" / "demos").rglob("*.yaml"))
    assert len(files) > 100
    for path in files:
        assert _read_file(path) == yaml.safe_load(path.read_text(encoding="utf-8")), path
    broken = tmp_path / "broken.yaml"
    broken.write_text("turns:\n  - content: [unclosed\n")
    with pytest.raises(PlaybackSourceError) as info:
        _read_file(broken)
    assert "cannot parse" in str(info.value) and "\n    ^" in str(info.value)  # PyYAML's caret under the fault
