"""An agent against a live OpenAI-compatible endpoint (a scripted server on 127.0.0.1): code
windows arrive as image parts under a visual condition, usage is the server's, and a rerun
of a finished trajectory makes zero model calls (the response cache)."""

from pathlib import Path

import pytest

from swevis.agents.run.runner import RunSpec, run_instance
from scripted_server import Reply, ScriptedServer, conversation

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


# coloured pytest output with non-ASCII text, as a live tool prints it (#52: pages never crash)
COLOURED = ("for i in $(seq 12); do printf '\\033[31mFAILED\\033[0m tests/test_gr\\303\\266\\303\\237e.py::test_%d"
            " - AssertionError: Zoll \\342\\211\\240 \\342\\200\\263 \\033[1m(\\346\\265\\213\\350\\257\\225)\\033[0m\\n' $i; done")
COLOURED_TURNS = [f"THOUGHT: run {i}.\n\n```mswea_bash_command\n{COLOURED}\n```" for i in range(6)] + [TURNS[-1]]


def run_scripted(instance, tmp_path, monkeypatch, condition: str, turns: list[str]) -> tuple[dict, list]:
    """A mini run under `condition` against a scripted server answering turn n to request n
    (the last one thereafter: under a history family the old turns are on pages, not
    countable); its trajectory and the server's requests."""
    row, mirror = instance
    monkeypatch.setenv("SWEVIS_TEST_KEY", "sk-test-sentinel")
    with ScriptedServer(responder=lambda index, request: Reply(turns[min(index, len(turns) - 1)])) as server:
        profile = {
            "backend": "openai", "base_url": server.base_url, "model_id": "vl-model", "api_key_env": "SWEVIS_TEST_KEY",
            "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0,
        }
        traj = run_instance(RunSpec(
            "live", profile, "mini", "normal", condition, row, mirror, str(tmp_path / "out"),
            agents_cfg={"environment": "local", "allow_live_on_host": True}, cache_dir=str(tmp_path / "cache"),
            workspace=str(tmp_path / "ws"),
        ))
        return traj, server.chat_requests


@pytest.mark.slow
@pytest.mark.parametrize("condition", ["text", "hist-r3"])
def test_a_live_run_on_coloured_output_completes_and_sends_the_printed_bytes(instance, tmp_path, monkeypatch, condition):
    traj, requests = run_scripted(instance, tmp_path, monkeypatch, condition, COLOURED_TURNS)
    assert traj["exit_status"] == "submitted" and len(requests) == len(COLOURED_TURNS)
    last = requests[-1].body["messages"]
    printed = "\x1b[31mFAILED\x1b[0m tests/test_größe.py::test_12 - AssertionError: Zoll ≠ ″ \x1b[1m(测试)\x1b[0m"
    newest = last[-1]["content"]
    assert printed in (newest if isinstance(newest, str) else "".join(p.get("text", "") for p in newest))
    if condition == "hist-r3":  # the old calls went out as pages, drawn: nothing of them fell back to text
        assert requests[-1].image_urls()
        assert not any(s["observation"] and s["observation"].get("history_text_reasons") for s in traj["steps"])
    else:
        assert not requests[-1].image_urls()
        assert sum(printed in str(m.get("content")) for m in last) == 6  # every output as the tool printed it


# a run's output of 60 distinct lines, and a thought long enough that its text costs more than its page
LONG_THOUGHT = "".join(f"Option {i} may be read before it is set in the ledger's rounding path; check it. " for i in range(15))
PAGED_TURNS = [f"THOUGHT: {LONG_THOUGHT}run {n}.\n\n```mswea_bash_command\nfor i in $(seq 60); do "
               f"echo \"run {n} line $i: the value of option_$i was out of range for rounding\"; done\n```"
               for n in range(6)] + [TURNS[-1]]


@pytest.mark.slow
@pytest.mark.parametrize("condition", ["hist-r3", "both-r3"])
def test_a_live_runs_totals_count_every_page_it_sent_history_pages_included(instance, tmp_path, monkeypatch, condition):
    traj, requests = run_scripted(instance, tmp_path, monkeypatch, condition, PAGED_TURNS)
    sent = {url for request in requests for url in request.image_urls()}  # each page once
    assert traj["exit_status"] == "submitted" and len(requests) == len(PAGED_TURNS)
    observed = sum(s["observation"]["pages"] for s in traj["steps"])
    assert traj["totals"]["history_pages"] > 0  # 6 calls before the last request: one block of 4 frozen
    assert traj["totals"]["image_pages"] == observed + traj["totals"]["history_pages"] == len(sent)
    assert (observed > 0) == (condition == "both-r3")  # hist-rN renders no fresh observation
