"""The response cache names the endpoint: the same model id at another server is asked, not
answered from the first server's cache, unless the profile says its servers are one model
(cache_shared_across_endpoints). Entries written before the endpoint was part of the key
name no endpoint, and are read only by such a profile."""

from __future__ import annotations

import hashlib
import json
import logging

import pytest

from swevis.models import make_model, request_key
from swevis.models.cache import ResponseCache, endpoint_id
from scripted_server import Reply, ScriptedServer

KEY_ENV = "SWEVIS_CACHE_TEST_KEY"
USER = [{"role": "user", "content": "Which file holds the bug?"}]


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "local-test-key")


def chat(server, tmp_path, **over):
    profile = {"backend": "openai", "base_url": server.base_url, "model_id": "same-model", "api_key_env": KEY_ENV,
               "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0} | over
    return make_model("m", profile, cache_dir=tmp_path / "cache")


def test_another_endpoint_with_the_same_model_id_is_asked(tmp_path):
    with ScriptedServer(default=Reply("from A")) as a, ScriptedServer(default=Reply("from B")) as b:
        assert chat(a, tmp_path).complete(USER).content == "from A"
        answer = chat(b, tmp_path).complete(USER)
        assert (answer.content, answer.cached) == ("from B", False)
        assert len(b.chat_requests) == 1
        # each endpoint's answer is cached under its own key: both now hit
        assert chat(a, tmp_path).complete(USER).content == "from A" and chat(b, tmp_path).complete(USER).cached
        assert len(a.chat_requests) == 1 and len(b.chat_requests) == 1
    assert len(ResponseCache(tmp_path / "cache")) == 2


def test_profiles_that_share_across_endpoints_reuse_the_answer(tmp_path):
    with ScriptedServer(default=Reply("from A")) as a, ScriptedServer(default=Reply("from B")) as b:
        assert chat(a, tmp_path, cache_shared_across_endpoints=True).complete(USER).content == "from A"
        answer = chat(b, tmp_path, cache_shared_across_endpoints=True).complete(USER)
        assert (answer.content, answer.cached) == ("from A", True) and b.chat_requests == []
        # a profile that does not share never reads the shared entry
        assert chat(b, tmp_path).complete(USER).content == "from B" and len(b.chat_requests) == 1


def test_the_same_endpoint_spelled_differently_still_hits(tmp_path):
    with ScriptedServer(default=Reply("once")) as a:
        chat(a, tmp_path).complete(USER)
        spelled = a.base_url.replace("http://127.0.0.1", "HTTP://user:pw@127.0.0.1") + "/"
        assert chat(a, tmp_path, base_url=spelled).complete(USER).cached
        assert len(a.chat_requests) == 1


def test_endpoint_id():
    assert endpoint_id("HTTP://User:Pw@Example.COM:8000/V1/") == "http://example.com:8000/V1"
    assert endpoint_id("http://[::1]:8000/v1") == "http://[::1]:8000/v1"
    assert endpoint_id("http://h:8000/v1") != endpoint_id("http://h:8001/v1")
    assert endpoint_id("https://h/v1") != endpoint_id("http://h/v1")


def old_scheme_key(body: dict) -> str:
    """The key every entry had before the endpoint was part of it, computed here on its own."""
    blob = json.dumps({"format": "swevis-response-cache-1", "request": body}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def write_old_entry(cache_dir, key: str, content: str) -> None:
    """An entry as the cache wrote it before the endpoint was part of the key."""
    entry = {"format": "swevis-response-cache-1", "key": key, "created": "2026-01-01T00:00:00Z", "request": {"model": "same-model"},
             "response": {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}}
    path = cache_dir / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(entry))


def test_an_entry_of_the_old_key_scheme_is_not_served_for_an_endpoint(tmp_path, caplog):
    with ScriptedServer(default=Reply("fresh")) as b:
        body = chat(b, tmp_path).request_body(USER, max_tokens=4096)
        assert old_scheme_key(body) == request_key(body, None)  # sharing profiles keep reading old entries
        write_old_entry(tmp_path / "cache", old_scheme_key(body), "written for some other server")
        with caplog.at_level(logging.WARNING):
            answer = chat(b, tmp_path).complete(USER)
            chat(b, tmp_path).complete([{"role": "user", "content": "another question"}])
        assert (answer.content, answer.cached) == ("fresh", False) and len(b.chat_requests) == 2
        assert caplog.text.count("cache_shared_across_endpoints: true") == 1  # said once, where it applies
        shared = chat(b, tmp_path, cache_shared_across_endpoints=True).complete(USER)
        assert (shared.content, shared.cached) == ("written for some other server", True) and len(b.chat_requests) == 2


def test_the_option_is_in_the_schema_and_off_by_default():
    from swevis.models import resolve_profile

    assert resolve_profile("m", {})["cache_shared_across_endpoints"] is False
