"""OpenAI-compatible chat backend (vLLM, llama.cpp's server, hosted APIs) through the openai client.

Retry policy
------------
1. Transport and server faults are retried by the openai client itself: HTTP 408, 409,
   429 and 5xx, timeouts and dropped connections, up to ``max_retries`` times with
   exponential backoff and jitter (the client honours ``Retry-After``/``retry-after-ms``
   up to 60 s). ``retry_backoff_s``/``retry_backoff_max_s`` in the profile replace the
   client's default backoff (0.5 s doubling to 8 s); tests set them small.
2. On top of that we retry responses that arrive with status 200 but cannot be used: a
   body that is not JSON (truncated), not an object, or without ``choices[0].message``.
   Up to ``invalid_response_retries`` more requests, with the same backoff.
   A response cut by the output budget (``finish_reason: length``) is a valid response:
   at temperature 0 a retry would return the same, so it is returned (and cached) and the
   agent treats its content like any other (usually a format error).
3. What is left raises a typed error: :class:`ContextLengthExceeded` for a 400 saying the
   prompt does not fit (an outcome of the trajectory), :class:`EndpointFailed` otherwise
   (``reason`` tells which), an InfrastructureError: the job fails and is retried.

The API key is read from the environment variable named by ``api_key_env``, handed to the
client and kept nowhere else: not in the cache, the usage records, errors or reprs. A key
that is missing is an error only when the first request is made (a rerun served entirely
from the cache needs none). The key is registered with swevis.redaction when the model is
built: an endpoint that quotes the request's Authorization header in an error body (or
in a completion) never puts it into a message, a log line, a record or the cache.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from swevis.models.base import (
    ChatModel,
    ChatResponse,
    ContextLengthExceeded,
    EndpointFailed,
    Estimator,
    MissingAPIKey,
    ModelConfigError,
    ModelError,
    TextCounter,
    Usage,
)
from swevis.models.cache import ResponseCache, request_key
from swevis.models.messages import content_text, count_images
from swevis.redaction import redact, register_secret

log = logging.getLogger(__name__)

_CONTEXT_RE = re.compile(
    r"context[ _-]?length|context window|maximum context|maximum model length|max_model_len"
    r"|prompt is too long|too many (input )?tokens|input tokens exceed|exceeds? the (model'?s? )?(context|maximum)",
    re.IGNORECASE,
)
_RETRYABLE_STATUS = {408, 409, 429}


def is_context_length_error(exc: Exception) -> bool:
    code = getattr(exc, "code", None)
    if code in ("context_length_exceeded", "string_above_max_length"):
        return True
    text = str(getattr(exc, "message", "")) + " " + json.dumps(getattr(exc, "body", None), default=str)
    return bool(_CONTEXT_RE.search(text))


# request fields the openai client takes as arguments; the rest go in its extra_body
REQUEST_FIELDS = frozenset(
    {"model", "messages", "temperature", "max_tokens", "max_completion_tokens", "top_p", "seed", "stop", "tools", "tool_choice"}
)


def one_line(error: Exception | str, limit: int = 500) -> str:
    """An error message on one line, cut to ``limit`` characters: it becomes a job's last log
    line and the CLI's one-line error, and a server may put a whole traceback into it (or
    the request's headers: redacted before it is cut, so no part of a key is left)."""
    text = " ".join(redact(str(error)).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _client_class(initial: float | None, maximum: float | None):
    """The openai client, with our backoff when the profile sets one."""
    # imported on first use: `import openai` takes ~0.57 s (measured, -X importtime), and
    # playback runs, the workflow's planning and the CLI's --help never call an endpoint
    from openai import OpenAI

    if initial is None and maximum is None:
        return OpenAI
    if not hasattr(OpenAI, "_calculate_retry_timeout"):  # pragma: no cover - future client versions
        log.warning("this openai client has no _calculate_retry_timeout; using its default backoff")
        return OpenAI
    first = 0.5 if initial is None else float(initial)
    cap = 8.0 if maximum is None else float(maximum)

    class _SwevisOpenAI(OpenAI):
        def _calculate_retry_timeout(self, remaining_retries, options, response_headers=None):  # type: ignore[override]
            retry_after = self._parse_retry_after_header(response_headers)
            if retry_after is not None and math.isfinite(retry_after) and 0 < retry_after <= 60:
                return retry_after
            max_retries = options.get_max_retries(self.max_retries)
            n = min(max_retries - remaining_retries, 1000)
            return min(first * 2.0**n, cap) * (1 - 0.25 * random.random())

    return _SwevisOpenAI


class InvalidResponse(Exception):
    """A 200 response we cannot use (internal; retried, then turned into EndpointFailed)."""


def parse_completion_body(text: str) -> dict[str, Any]:
    """The JSON body of a chat completion, checked for what we read from it."""
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise InvalidResponse(f"body is not JSON ({exc}); {len(text)} bytes, ends {text[-40:]!r}") from None
    if not isinstance(body, dict):
        raise InvalidResponse(f"body is a JSON {type(body).__name__}, not an object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        detail = f": error {body['error']!r}" if "error" in body else ""
        raise InvalidResponse(f"body has no choices{detail}")
    first = choices[0]
    if not isinstance(first, dict) or not isinstance(first.get("message"), dict):
        raise InvalidResponse("choices[0] has no message")
    content = first["message"].get("content")
    if content is not None and not isinstance(content, str | list):
        raise InvalidResponse(f"choices[0].message.content is a {type(content).__name__}")
    return body


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def reported_cached_tokens(usage: dict[str, Any]) -> int | None:
    """The prompt tokens an endpoint says it served from its prefix cache, or None when it
    says nothing. OpenAI-compatible servers (OpenAI, vLLM, DashScope) report
    ``usage.prompt_tokens_details.cached_tokens``; DeepSeek ``usage.prompt_cache_hit_tokens``
    (beside ``prompt_cache_miss_tokens``); some Moonshot (Kimi) versions ``usage.cached_tokens``."""
    details = usage.get("prompt_tokens_details")
    candidates = [details.get("cached_tokens") if isinstance(details, dict) else None,
                  usage.get("prompt_cache_hit_tokens"), usage.get("cached_tokens")]
    return next((n for n in map(_count, candidates) if n is not None), None)


class OpenAIChatModel(ChatModel):
    backend = "openai"

    def __init__(
        self,
        profile_name: str,
        profile: dict[str, Any],
        *,
        cache_dir: str | Path | None = None,
        estimator: Estimator | None = None,
        text_counter: TextCounter | None = None,
        environ: Mapping[str, str] | None = None,
    ):
        super().__init__(profile_name, profile, estimator=estimator, text_counter=text_counter)
        p = self.profile
        if not p["base_url"]:
            raise ModelConfigError(f"config key 'models/{profile_name}/base_url': required for backend openai")
        if not p["model_id"]:
            raise ModelConfigError(f"config key 'models/{profile_name}/model_id': required for backend openai")
        if p["max_tokens_field"] not in ("max_tokens", "max_completion_tokens"):
            raise ModelConfigError(
                f"config key 'models/{profile_name}/max_tokens_field': must be max_tokens or max_completion_tokens"
            )
        self.base_url: str = p["base_url"]
        self._environ = environ  # None: os.environ
        self._client = None
        self.deterministic = float(p["temperature"]) == 0.0
        self.cache = ResponseCache(cache_dir) if (cache_dir and p["cache"] and self.deterministic) else None
        # the endpoint the cache keys name; None: answers are shared across endpoints
        self.cache_endpoint: str | None = None if p["cache_shared_across_endpoints"] else self.base_url
        self._passed_over_shared_entry = False
        self.n_requests = 0  # HTTP requests made, the client's own retries included
        self.api_key()  # registered for redaction before anything can echo it

    # -- client ------------------------------------------------------------------

    def api_key(self) -> str:
        """The key in the profile's api_key_env ("" when unset), registered for redaction."""
        env = self.profile["api_key_env"]
        environ = os.environ if self._environ is None else self._environ
        key = environ.get(env, "") if env else ""
        register_secret(key, env)
        return key

    def _get_client(self):
        if self._client is None:
            env = self.profile["api_key_env"]
            key = self.api_key()
            if not key:
                raise MissingAPIKey(
                    f"model profile '{self.profile_name}': environment variable {env or '<unset>'} "
                    f"(config key models/{self.profile_name}/api_key_env) is empty or not set; it must hold "
                    f"the API key for {self.base_url} (any non-empty value if the server needs none)"
                )
            cls = _client_class(self.profile["retry_backoff_s"], self.profile["retry_backoff_max_s"])
            self._client = cls(
                base_url=self.base_url,
                api_key=key,
                max_retries=int(self.profile["max_retries"]),
                timeout=float(self.profile["request_timeout_s"]),
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- request -----------------------------------------------------------------

    def request_body(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        stop: list[str] | None = None,
    ) -> dict[str, Any]:
        """The JSON body POSTed for prepared ``messages`` (extra_body merged as the server sees it)."""
        p = self.profile
        body: dict[str, Any] = {
            "model": p["model_id"],
            "messages": messages,
            "temperature": float(p["temperature"]),
            p["max_tokens_field"]: int(max_tokens),
        }
        for name in ("top_p", "seed"):
            if p[name] is not None:
                body[name] = p[name]
        if stop:
            body["stop"] = list(stop)
        if tools:
            body["tools"] = tools
            if tool_choice is not None:
                body["tool_choice"] = tool_choice
        for k, v in (p["extra_body"] or {}).items():
            body.setdefault(k, v)
        return body

    def _backoff(self, attempt: int) -> float:
        first = self.profile["retry_backoff_s"]
        cap = self.profile["retry_backoff_max_s"]
        first = 0.5 if first is None else float(first)
        cap = 8.0 if cap is None else float(cap)
        return min(first * 2.0**attempt, cap) * (1 - 0.25 * random.random())

    def _status_error(self, exc: Any, where: str, requests: int) -> ModelError:
        """The error for an HTTP error status past the client's retries (counted in n_requests)."""
        status = exc.status_code
        if status in (413, 422) and is_context_length_error(exc):
            self.n_requests += requests + 1
            return ContextLengthExceeded(f"{where}: the request exceeds the context window: {one_line(exc)}")
        retryable = status in _RETRYABLE_STATUS or status >= 500
        tries = (int(self.profile["max_retries"]) + 1) if retryable else 1
        self.n_requests += requests + tries
        if retryable:
            return EndpointFailed(
                f"{where}: HTTP {status} after {tries} attempt(s): {one_line(exc)}",
                reason="retries_exhausted",
                status_code=status,
                attempts=requests + tries,
            )
        return EndpointFailed(
            f"{where}: request rejected: {one_line(exc)}", reason="rejected", status_code=status, attempts=requests + 1
        )

    def _post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """POST with the client's retries and ours; returns (parsed body, HTTP requests made)."""
        import openai  # on first use, as in _client_class (~0.57 s)

        client = self._get_client()
        kwargs = {k: v for k, v in body.items() if k in REQUEST_FIELDS}
        extra = {k: v for k, v in body.items() if k not in REQUEST_FIELDS}
        where = f"model '{self.profile_name}' ({self.profile['model_id']} at {self.base_url})"
        requests = 0
        limit = int(self.profile["invalid_response_retries"])
        problem = ""
        for attempt in range(limit + 1):
            try:
                raw = client.chat.completions.with_raw_response.create(**kwargs, extra_body=extra or None)
            except openai.BadRequestError as exc:
                self.n_requests += requests + 1
                if is_context_length_error(exc):
                    raise ContextLengthExceeded(f"{where}: the request exceeds the context window: {one_line(exc)}") from None
                raise EndpointFailed(f"{where}: request rejected: {one_line(exc)}", reason="rejected", status_code=400) from None
            except openai.APIStatusError as exc:
                raise self._status_error(exc, where, requests) from None
            except openai.APIConnectionError as exc:  # APITimeoutError is a subclass
                timed_out = isinstance(exc, openai.APITimeoutError)
                tries = int(self.profile["max_retries"]) + 1
                self.n_requests += requests + tries
                raise EndpointFailed(
                    f"{where}: {'timed out' if timed_out else 'connection failed'} after {tries} attempt(s): {one_line(exc)}",
                    reason="retries_exhausted" if timed_out else "connection",
                    attempts=requests + tries,
                ) from None
            requests += int(getattr(raw, "retries_taken", 0)) + 1
            try:
                parsed = parse_completion_body(redact(raw.http_response.text))
            except InvalidResponse as exc:
                problem = str(exc)
                if attempt < limit:
                    delay = self._backoff(attempt)
                    log.warning("%s: unusable response (%s); retrying in %.2fs", where, problem, delay)
                    time.sleep(delay)
                continue
            self.n_requests += requests
            return parsed, requests
        self.n_requests += requests
        raise EndpointFailed(
            f"{where}: unusable response after {limit + 1} attempt(s): {one_line(problem)}",
            reason="invalid_response",
            attempts=requests,
        )

    def _complete(
        self,
        messages,
        *,
        max_tokens,
        purpose,
        tools,
        tool_choice,
        stop,
        estimated_prompt_tokens,
    ) -> ChatResponse:
        body = self.request_body(messages, max_tokens=max_tokens, tools=tools, tool_choice=tool_choice, stop=stop)
        key = request_key(body, self.cache_endpoint)
        cached = False
        requests = 0
        entry = self.cache.get(key) if self.cache is not None else None
        if entry is not None:
            parsed, cached = entry["response"], True
        else:
            self._note_shared_entry(body)
            parsed, requests = self._post(body)
            if self.cache is not None:
                summary = {k: v for k, v in body.items() if k not in ("messages", "tools")}
                summary |= {"n_messages": len(messages), "n_images": count_images(messages)}
                self.cache.put(key, parsed, summary=summary, endpoint=self.cache_endpoint)
        return self._to_response(parsed, key=key, cached=cached, requests=requests, estimate=estimated_prompt_tokens)

    def _note_shared_entry(self, body: dict[str, Any]) -> None:
        """Say once that the cache holds an answer naming no endpoint that this profile does
        not read (an entry from before endpoints were part of the key, or of a profile that
        shares answers): the user who trusts it can opt in, nobody pays twice unknowingly."""
        if self.cache is None or self.cache_endpoint is None or self._passed_over_shared_entry:
            return
        if request_key(body, None) in self.cache:
            self._passed_over_shared_entry = True
            log.warning(
                "model '%s': the response cache %s holds answers to these requests that name no endpoint (written "
                "before the endpoint was part of the cache key, or by a profile that shares answers); they are not "
                "used for %s, which is asked again. Set models/%s/cache_shared_across_endpoints: true to reuse them.",
                self.profile_name, self.cache.dir, self.base_url, self.profile_name,
            )

    def _to_response(self, parsed, *, key, cached, requests, estimate) -> ChatResponse:
        choice = parsed["choices"][0]
        message = choice["message"]
        content = content_text(message.get("content"))
        tool_calls = message.get("tool_calls") or None
        est_completion = self.estimate_text_tokens(content + (json.dumps(tool_calls) if tool_calls else ""))
        usage_body = parsed.get("usage") if isinstance(parsed.get("usage"), dict) else {}
        sp, sc = usage_body.get("prompt_tokens"), usage_body.get("completion_tokens")
        cached_prompt = reported_cached_tokens(usage_body)
        has_server = isinstance(sp, int) and isinstance(sc, int) and not isinstance(sp, bool)
        usage = Usage(
            prompt_tokens=sp if has_server else estimate,
            completion_tokens=sc if has_server else est_completion,
            estimated_prompt_tokens=estimate,
            source="server" if has_server else "estimate",
            estimated_completion_tokens=est_completion,
            server_prompt_tokens=sp if has_server else None,
            server_completion_tokens=sc if has_server else None,
            server_cached_prompt_tokens=cached_prompt,
            cached_prompt_tokens=min(cached_prompt or 0, sp) if has_server else 0,
            tokenizer=self.tokenizer,
            image_family=self.image_family,
        )
        return ChatResponse(
            content=content,
            usage=usage,
            raw=parsed,
            cached=cached,
            tool_calls=tool_calls,
            finish_reason=choice.get("finish_reason"),
            meta={"cache_key": key, "http_requests": requests},
        )
