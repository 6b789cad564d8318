"""An agent against a live OpenAI-compatible endpoint (a scripted server on 127.0.0.1): code
windows arrive as image parts under a visual condition, usage is the server's, and a rerun
of a finished trajectory makes zero model calls (the response cache)."""

from pathlib import Path

import pytest

from swevis.agents.run.runner import RunSpec, run_instance
from scripted_server import ScriptedServer, conversation

TURNS = [
    "THOUGHT: find it.\n\n```mswea_bash_command\ngrep -n 'def round' ledgerkit/money.py\n```",
    "THOUGHT: read it.\n\n```mswea_bash_command\nsed -n '100,130p' ledgerkit/money.py\n```",
    "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
]


@pytest.mark.slow
def test_live_run_sends_images_uses_server_usage_and_reruns_from_cache(instance, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv("SWEVIS_TEST_KEY", "sk-test-sentinel")
    with ScriptedServer(responder=conversation(TURNS)) as server:
        profile = {
            "backend": "openai", "base_url": server.base_url, "model_id": "vl-model", "api_key_env": "SWEVIS_TEST_KEY",
            "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0,
        }

        def run(out):
            return run_instance(RunSpec(
                "live", profile, "mini", "normal", "r3", row, mirror, str(out),
                agents_cfg={"environment": "local", "allow_live_on_host": True}, cache_dir=str(tmp_path / "cache"),
                workspace=str(tmp_path / "ws"),
            ))

        traj = run(tmp_path / "first")
        assert traj["exit_status"] == "submitted" and traj["backend"] == "openai"
        calls = len(server.chat_requests)
        assert calls == 3
        # the sed window went to the server as base64 PNG image parts
        assert server.chat_requests[-1].image_urls() and all(
            u.startswith("data:image/png;base64,") for u in server.chat_requests[-1].image_urls()
        )
        assert all(s["usage"]["source"] == "server" for s in traj["steps"])
        assert all(s["usage"]["estimated_prompt_tokens"] > 0 for s in traj["steps"])
        # a rerun of the finished trajectory pays nothing
        again = run(tmp_path / "second")
        assert len(server.chat_requests) == calls
        assert again["totals"]["prompt_tokens"] == traj["totals"]["prompt_tokens"]
        assert (tmp_path / "second" / "patch.diff").read_text() == (tmp_path / "first" / "patch.diff").read_text()
