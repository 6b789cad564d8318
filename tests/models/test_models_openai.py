"""The OpenAI-compatible backend, driven for real through the openai client against a
scripted server on 127.0.0.1 (tests/scripted_server.py). No network."""

from __future__ import annotations

import base64
import io
import json
import threading

import pytest

from swevis.config import SCHEMA_PATH
from swevis.models import (
    ContextLengthExceeded,
    ModelCallFailed,
    ModelConfigError,
    OpenAIChatModel,
    image_part,
    make_model,
    request_key,
)
from scripted_server import Fail, Raw, Reply, ScriptedServer, Truncate, context_length_error, every_nth

KEY_ENV = "SWEVIS_TEST_KEY_VAR"
SECRET = "sk-test-7f3a9c1d-do-not-leak"


def fake_estimator(messages, tokenizer, image_family):
    """Stands in for swevis.tokens.count_message_tokens: 1 token per 4 chars, 100 per image, 3 per message."""
    total = 0
    for msg in messages:
        total += 3
        content = msg.get("content")
        if isinstance(content, str):
            total += len(content) // 4
        elif isinstance(content, list):
            for part in content:
                total += 100 if part.get("type") == "image_url" else len(part.get("text", "")) // 4
    return total


def fake_text_counter(text, tokenizer):
    return len(text.split())


def png_bytes(color=(200, 30, 30), size=(16, 8)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def server(scripted_server):
    return scripted_server()


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    return {KEY_ENV: SECRET}


def profile(server, **over):
    base = {
        "backend": "openai",
        "model_id": "scripted-model",
        "base_url": server.base_url,
        "api_key_env": KEY_ENV,
        "tokenizer": "qwen3",
        "image_family": "qwen3.5",
        "max_retries": 3,
        "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.05,
        "request_timeout_s": 10,
    }
    return base | over


def model(server, tmp_path=None, **over) -> OpenAIChatModel:
    return make_model(
        "scripted",
        profile(server, **over),
        cache_dir=(tmp_path / "cache") if tmp_path is not None else None,
        estimator=fake_estimator,
        text_counter=fake_text_counter,
    )


USER = [{"role": "system", "content": "You are a careful engineer."}, {"role": "user", "content": "Fix the bug."}]


# ------------------------------------------------------------------ requests and usage


def test_image_parts_arrive_as_base64_png_data_urls(server, env):
    png = png_bytes()
    messages = [
        {"role": "system", "content": "sys"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "src/x.py lines 1-40:"},
                image_part(png, label="page 1 of src/x.py:1-40"),
            ],
            "extra": {"step": 3},
        },
    ]
    server.push(Reply("looks fine"))
    resp = model(server).complete(messages)
    assert resp.content == "looks fine"
    (req,) = server.chat_requests
    urls = req.image_urls()
    assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
    assert base64.b64decode(urls[0].split(",", 1)[1]) == png
    sent_user = req.body["messages"][1]
    assert "extra" not in sent_user  # bookkeeping stays out of the request
    assert all("swevis_label" not in p for p in sent_user["content"])
    assert req.body["model"] == "scripted-model"
    assert req.body["temperature"] == 0.0 and req.body["max_tokens"] == 4096
    assert resp.meta["images_sent"] == 1 and resp.meta["images_omitted"] == 0


def test_authorization_header_carries_the_key_from_the_named_env_var(server, env):
    model(server).complete(USER)
    assert server.chat_requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_usage_recorded_beside_the_estimate(server, env):
    server.push(
        Reply(
            "a b c",
            usage={
                "prompt_tokens": 1234,
                "completion_tokens": 56,
                "total_tokens": 1290,
                "prompt_tokens_details": {"cached_tokens": 1000},
            },
        )
    )
    resp = model(server).complete(USER)
    u = resp.usage
    assert (u.prompt_tokens, u.completion_tokens, u.source) == (1234, 56, "server")
    assert u.server_prompt_tokens == 1234 and u.server_completion_tokens == 56
    assert u.server_cached_prompt_tokens == 1000
    assert u.estimated_prompt_tokens == fake_estimator(USER, "qwen3", "qwen3.5")
    assert u.estimated_completion_tokens == 3
    record = resp.record()
    json.dumps(record)  # trajectory-ready
    assert record["usage"]["total_tokens"] == 1290 and record["cached"] is False


def test_missing_usage_the_estimate_stands_in_marked(server, env):
    server.push(Reply("one two three four", usage=None))
    u = model(server).complete(USER).usage
    assert u.source == "estimate"
    assert u.prompt_tokens == u.estimated_prompt_tokens == fake_estimator(USER, "qwen3", "qwen3.5")
    assert u.completion_tokens == u.estimated_completion_tokens == 4
    assert u.server_prompt_tokens is None and u.server_completion_tokens is None


def test_preloc_purpose_uses_preloc_max_tokens_and_max_tokens_field(server, env):
    m = model(server, max_tokens_field="max_completion_tokens")
    m.complete(USER, purpose="preloc")
    m.complete(USER, max_tokens=77)
    first, second = server.chat_requests
    assert first.body["max_completion_tokens"] == 1600 and "max_tokens" not in first.body
    assert second.body["max_completion_tokens"] == 77


def test_extra_body_and_tools_reach_the_server(server, env):
    tools = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    call = [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]
    server.push(Reply("", tool_calls=call))
    m = model(server, extra_body={"chat_template_kwargs": {"enable_thinking": False}}, seed=7)
    resp = m.complete(USER, tools=tools, tool_choice="auto")
    body = server.chat_requests[0].body
    assert body["chat_template_kwargs"] == {"enable_thinking": False} and body["seed"] == 7
    assert body["tools"] == tools and body["tool_choice"] == "auto"
    assert resp.tool_calls == call and resp.to_message()["tool_calls"] == call


# ------------------------------------------------------------------ retries


@pytest.mark.parametrize("status", [429, 500, 503])
def test_retryable_status_then_success(server, env, status):
    server.push(Fail(status), Reply("recovered"))
    resp = model(server).complete(USER)
    assert resp.content == "recovered"
    reqs = server.chat_requests
    assert len(reqs) == 2
    assert [r.headers.get("x-stainless-retry-count") for r in reqs] == ["0", "1"]  # the client's own retry
    assert resp.meta["http_requests"] == 2


def test_truncated_json_body_is_retried(server, env):
    server.push(Truncate(mode="json"), Reply("whole"))
    resp = model(server).complete(USER)
    assert resp.content == "whole" and len(server.chat_requests) == 2


def test_connection_dropped_mid_body_is_retried(server, env):
    server.push(Truncate(mode="connection"), Reply("whole"))
    resp = model(server).complete(USER)
    assert resp.content == "whole" and len(server.chat_requests) == 2


@pytest.mark.parametrize(
    "bad",
    [
        Raw(200, '{"object": "chat.completion"}'),
        Raw(200, '{"choices": []}'),
        Raw(200, "[1, 2]"),
        Raw(200, '{"choices": [{"index": 0}]}'),
        Raw(200, "<html>gateway</html>", "text/html"),
    ],
)
def test_unusable_bodies_are_retried(server, env, bad):
    server.push(bad, Reply("fine"))
    assert model(server).complete(USER).content == "fine"
    assert len(server.chat_requests) == 2


def test_exhausted_retries_raise_model_call_failed(server, env):
    server.default = Fail(500, "overloaded")
    with pytest.raises(ModelCallFailed) as err:
        model(server, max_retries=2).complete(USER)
    assert err.value.reason == "retries_exhausted" and err.value.status_code == 500
    assert len(server.chat_requests) == 3  # 1 + max_retries
    assert SECRET not in str(err.value)


def test_exhausted_invalid_responses_raise_model_call_failed(server, env):
    server.default = Truncate()
    with pytest.raises(ModelCallFailed) as err:
        model(server, invalid_response_retries=2).complete(USER)
    assert err.value.reason == "invalid_response"
    assert len(server.chat_requests) == 3


def test_context_length_error_is_typed_and_not_retried(server, env):
    server.push(context_length_error())
    with pytest.raises(ContextLengthExceeded, match="maximum context length"):
        model(server).complete(USER)
    assert len(server.chat_requests) == 1


def test_other_client_errors_are_rejected_without_retry(server, env):
    server.push(Fail(401, "bad key"))
    with pytest.raises(ModelCallFailed) as err:
        model(server).complete(USER)
    assert err.value.reason == "rejected" and err.value.status_code == 401
    assert len(server.chat_requests) == 1


def test_unreachable_endpoint_is_a_connection_failure(env):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    m = make_model(
        "dead",
        {
            "backend": "openai",
            "model_id": "m",
            "base_url": f"http://127.0.0.1:{port}/v1",
            "api_key_env": KEY_ENV,
            "max_retries": 1,
            "retry_backoff_s": 0.01,
        },
        estimator=fake_estimator,
        text_counter=fake_text_counter,
    )
    with pytest.raises(ModelCallFailed) as err:
        m.complete(USER)
    assert err.value.reason == "connection"


def test_every_nth_fault_injection_is_absorbed_by_retries(env):
    with ScriptedServer(responder=every_nth(2, Fail(503))) as srv:
        m = model(srv)
        for i in range(4):
            assert m.complete([{"role": "user", "content": f"call {i}"}]).content == "ok"
        assert len(srv.chat_requests) == 7  # ok, 503+ok, 503+ok, 503+ok


@pytest.mark.slow
def test_slow_response_times_out_and_is_retried(server, env):
    # "late" is held until the retry arrives: too late however loaded the machine; the timeout
    # leaves "quick" ample time
    server.push(Reply("late", held=True), Reply("quick"))
    resp = model(server, request_timeout_s=2).complete(USER)
    assert resp.content == "quick"
    assert len(server.chat_requests) == 2


# ------------------------------------------------------------------ cache


def test_cache_makes_a_repeated_call_free(server, env, tmp_path):
    m = model(server, tmp_path)
    first = m.complete(USER)
    again = m.complete(USER)
    assert len(server.chat_requests) == 1
    assert again.cached and not first.cached
    assert again.content == first.content and again.usage == first.usage
    # a rerun in a new process (new model object) pays nothing either
    rerun = model(server, tmp_path)
    assert rerun.complete(USER).cached
    assert len(server.chat_requests) == 1 and rerun.n_requests == 0 and rerun.n_cache_hits == 1


def test_cache_hit_needs_no_api_key(server, env, tmp_path, monkeypatch):
    model(server, tmp_path).complete(USER)
    monkeypatch.delenv(KEY_ENV)
    assert model(server, tmp_path).complete(USER).cached
    with pytest.raises(ModelConfigError, match=KEY_ENV):
        model(server, tmp_path).complete([{"role": "user", "content": "new question"}])


def test_cache_is_keyed_by_the_exact_request(server, env, tmp_path):
    m = model(server, tmp_path)
    m.complete(USER)
    m.complete(USER, max_tokens=100)
    m.complete(USER + [{"role": "user", "content": "more"}])
    m.complete(USER, purpose="preloc")  # 1600 max tokens: a different request
    assert len(server.chat_requests) == 4
    # what is not sent is not part of the key: message extras, image labels
    m.complete([USER[0], USER[1] | {"extra": {"step": 1}}])
    assert len(server.chat_requests) == 4


def test_temperature_above_zero_is_not_cached(server, env, tmp_path):
    m = model(server, tmp_path, temperature=0.7)
    m.complete(USER)
    m.complete(USER)
    assert len(server.chat_requests) == 2
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").rglob("*.json"))


def test_errors_are_not_cached(server, env, tmp_path):
    server.push(context_length_error())
    with pytest.raises(ContextLengthExceeded):
        model(server, tmp_path).complete(USER)
    assert model(server, tmp_path).complete(USER).content == "ok"
    assert len(server.chat_requests) == 2


def test_cache_files_are_one_json_per_key(server, env, tmp_path):
    resp = model(server, tmp_path).complete(USER)
    key = resp.meta["cache_key"]
    path = tmp_path / "cache" / key[:2] / f"{key}.json"
    entry = json.loads(path.read_text())
    assert entry["key"] == key and entry["response"]["choices"][0]["message"]["content"] == "ok"
    assert entry["request"]["model"] == "scripted-model" and "messages" not in entry["request"]
    assert entry["endpoint"] == server.base_url
    assert key == request_key(server.chat_requests[0].body, server.base_url)  # the hash of what was POSTed, and where


def test_concurrent_writers_leave_complete_entries(tmp_path):
    from swevis.models.cache import ResponseCache

    cache = ResponseCache(tmp_path)
    key = "ab" + "0" * 62
    big = {"choices": [{"message": {"content": "x" * 200_000}}]}

    def write():
        for _ in range(20):
            cache.put(key, big, summary={}, endpoint="http://127.0.0.1:8000/v1")
            assert cache.get(key)["response"] == big  # never a half-written file

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [p.name for p in (tmp_path / "ab").iterdir()] == [f"{key}.json"]  # no temp files left


def test_corrupt_cache_entry_is_a_miss(server, env, tmp_path):
    resp = model(server, tmp_path).complete(USER)
    key = resp.meta["cache_key"]
    (tmp_path / "cache" / key[:2] / f"{key}.json").write_text('{"key": "tru')
    assert not model(server, tmp_path).complete(USER).cached
    assert len(server.chat_requests) == 2


# ------------------------------------------------------------------ secrets


def test_api_key_never_appears_in_outputs(server, env, tmp_path):
    m = model(server, tmp_path)
    png = png_bytes()
    resp = m.complete([{"role": "user", "content": [{"type": "text", "text": "see"}, image_part(png)]}])
    server.push(Fail(500))
    server.default = Fail(500)
    with pytest.raises(ModelCallFailed) as err:
        model(server, tmp_path, max_retries=0).complete(USER)
    texts = [
        repr(m),
        str(m.__dict__.keys()),
        json.dumps(resp.record()),
        json.dumps(resp.raw),
        str(err.value),
        repr(err.value),
    ]
    texts += [p.read_text() for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert texts and all(SECRET not in t for t in texts)
    assert all(SECRET not in json.dumps(v, default=str) for v in m.__dict__.values() if v is not m._client)


def test_missing_key_env_names_the_variable(server, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(ModelConfigError, match=f"{KEY_ENV}.*api_key_env"):
        model(server).complete(USER)
    assert server.chat_requests == []


def test_profile_errors_name_the_key(server):
    with pytest.raises(ModelConfigError, match="models/p/base_url"):
        make_model("p", {"backend": "openai", "model_id": "m"})
    with pytest.raises(ModelConfigError, match="models/p/backend"):
        make_model("p", {"backend": "carrier-pigeon"})
    with pytest.raises(ModelConfigError, match="unknown key"):
        make_model("p", {"backend": "openai", "api_key": "sk-inline"})


# ------------------------------------------------------------------ image cap


def _observation(i: int, pages: int = 1):
    parts = [{"type": "text", "text": f"observation {i}"}]
    for p in range(pages):
        parts.append(image_part(png_bytes((i * 20 % 255, p * 40, 0)), label=f"page {p + 1} of src/m{i}.py:1-60"))
    return {"role": "user", "content": parts}


def test_image_cap_keeps_the_newest_and_names_the_rest(server, env, tmp_path):
    history = [{"role": "system", "content": "sys"}]
    for i in range(3):
        history += [_observation(i, pages=2), {"role": "assistant", "content": f"step {i}"}]
    m = model(server, tmp_path, max_images_per_request=3)
    resp = m.complete(history)
    body = server.chat_requests[0].body
    assert len(server.chat_requests[0].image_urls()) == 3
    texts = [
        p["text"]
        for msg in body["messages"]
        if isinstance(msg["content"], list)
        for p in msg["content"]
        if p["type"] == "text"
    ]
    assert "[image omitted: page 1 of src/m0.py:1-60, shown earlier]" in texts
    assert "[image omitted: page 2 of src/m0.py:1-60, shown earlier]" in texts
    assert "[image omitted: page 1 of src/m1.py:1-60, shown earlier]" in texts
    kept = body["messages"][3]["content"]  # second observation: page 2 kept
    assert kept[2]["type"] == "image_url"
    assert resp.meta["images_sent"] == 3 and resp.meta["images_omitted"] == 3
    # the image estimate is taken on what was sent (3 images, not 6)
    assert resp.usage.estimated_prompt_tokens == fake_estimator(body["messages"], "qwen3", "qwen3.5")
    # deterministic: the same history gives the same request, so the cache hits
    assert model(server, tmp_path, max_images_per_request=3).complete(history).cached


def test_image_cap_zero_and_unlabelled_placeholder():
    from swevis.models.messages import apply_image_cap

    msgs = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]}]
    out, stats = apply_image_cap(msgs, 0)
    assert out[0]["content"] == [
        {"type": "text", "text": "[image omitted: image 1 of this conversation, shown earlier]"}
    ]
    assert stats == {"sent": 0, "omitted": 1}
    assert msgs[0]["content"][0]["type"] == "image_url"  # input untouched
    same, stats = apply_image_cap(msgs, None)
    assert same == msgs and stats == {"sent": 1, "omitted": 0}


def test_image_policy_reject(server, env):
    m = model(server, max_images_per_request=1, image_policy="reject")
    with pytest.raises(ModelCallFailed) as err:
        m.complete([_observation(0, pages=2)])
    assert err.value.reason == "too_many_images"
    assert server.chat_requests == []


# ------------------------------------------------------------------ config


def test_profile_defaults_match_the_schema():
    import yaml

    from swevis.models.base import resolve_profile

    PROFILE_DEFAULTS = resolve_profile("p", {})  # a bare profile, filled by the schema

    schema = yaml.safe_load(SCHEMA_PATH.read_text())
    props = schema["properties"]["models"]["additionalProperties"]["properties"]
    assert set(props) == set(PROFILE_DEFAULTS)
    for key, spec in props.items():
        assert spec.get("default") == PROFILE_DEFAULTS[key], key


def test_real_token_models_estimate_beside_server_usage(server, env):
    """With swevis.tokens (no injected estimator) the estimate covers text and image parts."""
    tokens = pytest.importorskip("swevis.tokens")
    messages = [
        {"role": "system", "content": "sys"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "page:"}, image_part(png_bytes(size=(448, 224)), label="page 1")],
        },
    ]
    m = make_model("real", profile(server))
    u = m.complete(messages).usage
    sent = server.chat_requests[0].body["messages"]
    assert u.estimated_prompt_tokens == tokens.count_message_tokens(sent, "qwen3", "qwen3.5")
    text_only = tokens.count_message_tokens([sent[0], {"role": "user", "content": "page:"}], "qwen3", "qwen3.5")
    assert u.estimated_prompt_tokens > text_only  # the image counted
    assert u.source == "server" and u.estimated_completion_tokens == tokens.text_tokens("ok", "qwen3")
