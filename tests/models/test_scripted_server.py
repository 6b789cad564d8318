"""The scripted server's own guarantees the fault-injection tests build on."""

from __future__ import annotations

import json
import threading
import time
import urllib.request

from scripted_server import Reply, ScriptedServer, assistant_turns, conversation


def post(server: ScriptedServer, messages: list[dict]) -> dict:
    body = json.dumps({"model": "m", "messages": messages}).encode()
    req = urllib.request.Request(f"{server.base_url}/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def test_a_held_reply_is_sent_only_after_a_later_request_arrived():
    answered = {}

    with ScriptedServer([Reply("late", held=True), Reply("next")]) as server:
        first = threading.Thread(target=lambda: answered.update(late=post(server, [])))
        first.start()
        # the first request is recorded before it is held: only then send the second
        deadline = time.monotonic() + 30
        while not server.chat_requests and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "late" not in answered
        assert post(server, [])["choices"][0]["message"]["content"] == "next"
        first.join(timeout=30)
    assert answered["late"]["choices"][0]["message"]["content"] == "late"
    assert len(server.chat_requests) == 2


def test_conversation_answers_by_the_turn_asked_for():
    turns = ["one", "two"]
    with ScriptedServer(responder=conversation(turns)) as server:
        said = [post(server, [{"role": "assistant", "content": "x"}] * n)["choices"][0]["message"]["content"]
                for n in (0, 1, 5, 0)]
    assert said == ["one", "two", "two", "one"]
    assert [assistant_turns(r) for r in server.chat_requests] == [0, 1, 5, 0]
