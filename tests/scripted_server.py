"""A scripted OpenAI-compatible server on 127.0.0.1, for tests and fault injection.

    with ScriptedServer([Fail(429), Reply("hello")]) as server:
        profile = {"backend": "openai", "base_url": server.base_url, "model_id": "m", ...}
        ...
        assert len(server.requests) == 2

It serves ``POST /v1/chat/completions`` (and ``GET /v1/models``). Each request takes the
next action of the script; when the script is used up, ``default`` answers (a callable
``(index, request) -> action``, or one action; by default ``Reply("ok")``).
``responder`` replaces the script altogether, e.g. ``every_nth(3, Fail(500))``.
``port`` (default: any free one) lets a test bring an endpoint up where a run found none.
``conversation(turns)`` answers turn n of an agent's conversation with ``turns[n]``.

Actions: :class:`Reply` (a completion, usage optional, optional delay, or ``held`` until a
later request arrives: a reply the client certainly gave up on), :class:`Fail`
(an HTTP error with an OpenAI-style error body), :class:`Truncate` (a body cut short:
``mode="json"`` sends a consistent Content-Length so the client gets invalid JSON,
``mode="connection"`` closes the socket mid-body), :class:`Raw` (any status/body).
Every request is recorded (headers, parsed JSON body) in ``server.requests``.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


HOLD_LIMIT_S = 60.0  # a held reply is sent anyway after this long, so a test cannot hang on it


@dataclass
class Reply:
    content: str = "ok"
    usage: dict[str, Any] | None | str = "auto"  # "auto": computed; None: no usage key
    finish_reason: str = "stop"
    tool_calls: list[dict[str, Any]] | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    # sent only once a later request has arrived, i.e. after the client gave up on this one:
    # a reply that is certainly too late, whatever the machine's load (a delay is a guess)
    held: bool = False


@dataclass
class Fail:
    status: int = 500
    message: str = "scripted failure"
    code: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Truncate:
    content: str = "this response is cut short"
    keep: float = 0.5  # fraction of the body that is sent
    mode: str = "json"  # "json" or "connection"
    delay: float = 0.0


@dataclass
class Raw:
    status: int = 200
    body: str | bytes = ""
    content_type: str = "application/json"
    delay: float = 0.0


Action = Reply | Fail | Truncate | Raw


def context_length_error(limit: int = 32768, requested: int = 40000) -> Fail:
    """The 400 vLLM sends when a prompt does not fit."""
    return Fail(
        400,
        f"This model's maximum context length is {limit} tokens. However, you requested {requested} tokens "
        f"in the messages, Please reduce the length of the messages.",
        code="context_length_exceeded",
    )


def assistant_turns(request: Any) -> int:
    """How many assistant messages the request's conversation holds: the turn it asks for."""
    return sum(1 for m in (request.body or {}).get("messages", []) if m.get("role") == "assistant")


def conversation(turns: list[str]) -> Callable[[int, Any], Action]:
    """A responder answering turn n of the conversation with turns[n] (the last one past the end),
    so a retried or resumed request gets the same reply as the first."""

    def respond(index: int, request: Any) -> Action:
        return Reply(turns[min(assistant_turns(request), len(turns) - 1)])

    return respond


def every_nth(n: int, fault: Action, normal: Action | None = None) -> Callable[[int, Any], Action]:
    """A responder failing every n-th request (1-based: requests n, 2n, ...)."""

    def respond(index: int, request: Any) -> Action:
        return fault if (index + 1) % n == 0 else (normal or Reply())

    return respond


@dataclass
class RecordedRequest:
    index: int
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes
    time: float

    def image_urls(self) -> list[str]:
        """Every image_url part's URL in the request's messages."""
        out = []
        for msg in (self.body or {}).get("messages", []):
            content = msg.get("content")
            if isinstance(content, list):
                out += [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
        return out


def auto_usage(body: dict[str, Any], content: str) -> dict[str, int]:
    """A deterministic stand-in for a server's token counts (not a tokenizer)."""
    prompt = 0
    for msg in body.get("messages", []):
        c = msg.get("content")
        if isinstance(c, str):
            prompt += len(c) // 4 + 4
        elif isinstance(c, list):
            for p in c:
                prompt += len(p.get("text", "")) // 4 if p.get("type") == "text" else 256
            prompt += 4
    completion = len(content) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class _QuietServer(ThreadingHTTPServer):
    """A client that gave up (a timeout test) leaves a broken pipe behind: expected, not news."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class ScriptedServer:
    def __init__(
        self,
        script: list[Action] | None = None,
        *,
        default: Action | Callable[[int, RecordedRequest], Action] | None = None,
        responder: Callable[[int, RecordedRequest], Action] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        self.script = list(script or [])
        self.default = default if default is not None else Reply()
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)  # notified on every recorded request
        self._httpd = _QuietServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def push(self, *actions: Action) -> None:
        with self._lock:
            self.script.extend(actions)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- dispatch ----------------------------------------------------------------

    def _next_action(self, request: RecordedRequest) -> Action:
        with self._lock:
            if self.responder is not None:
                return self.responder(request.index, request)
            if self.script:
                return self.script.pop(0)
        return self.default(request.index, request) if callable(self.default) else self.default

    def _record(self, handler: BaseHTTPRequestHandler, raw: bytes) -> RecordedRequest:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        with self._lock:
            rec = RecordedRequest(
                index=len(self.requests),
                method=handler.command,
                path=handler.path,
                headers={k.lower(): v for k, v in handler.headers.items()},
                body=body,
                raw=raw,
                time=time.time(),
            )
            self.requests.append(rec)
            self._arrived.notify_all()
        return rec

    def _hold(self, rec: RecordedRequest) -> None:
        """Wait until a request after `rec` has arrived (or HOLD_LIMIT_S has passed)."""
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.requests) > rec.index + 1, timeout=HOLD_LIMIT_S)

    def _handler_class(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, payload: bytes, content_type="application/json", headers=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self):
                server._record(self, b"")
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        200, json.dumps({"object": "list", "data": [{"id": "scripted", "object": "model"}]}).encode()
                    )
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                rec = server._record(self, raw)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                action = server._next_action(rec)
                if getattr(action, "delay", 0):
                    time.sleep(action.delay)
                if getattr(action, "held", False):
                    server._hold(rec)
                body = rec.body if isinstance(rec.body, dict) else {}
                if isinstance(action, Reply):
                    self._send(
                        200, json.dumps(completion_body(rec.index, body, action)).encode(), headers=action.headers
                    )
                elif isinstance(action, Fail):
                    err = {
                        "error": {
                            "message": action.message,
                            "type": "scripted_error",
                            "param": None,
                            "code": action.code,
                        }
                    }
                    self._send(action.status, json.dumps(err).encode(), headers=action.headers)
                elif isinstance(action, Truncate):
                    full = json.dumps(completion_body(rec.index, body, Reply(action.content))).encode()
                    cut = full[: max(1, int(len(full) * action.keep))]
                    if action.mode == "json":
                        self._send(200, cut)
                    else:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(full)))
                        self.end_headers()
                        self.wfile.write(cut)
                        self.wfile.flush()
                        self.close_connection = True
                        try:
                            self.connection.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                elif isinstance(action, Raw):
                    payload = action.body.encode() if isinstance(action.body, str) else action.body
                    self._send(action.status, payload, content_type=action.content_type)
                else:  # pragma: no cover - programming error in a test
                    self._send(500, json.dumps({"error": {"message": f"bad scripted action {action!r}"}}).encode())

        return Handler


def completion_body(index: int, request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    body: dict[str, Any] = {
        "id": f"chatcmpl-scripted-{index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason, "logprobs": None}],
    }
    if reply.usage == "auto":
        body["usage"] = auto_usage(request, reply.content)
    elif isinstance(reply.usage, dict):
        body["usage"] = reply.usage
    return body
