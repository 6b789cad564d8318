"""swevis.redaction on its own: which values are registered, every form a value takes in
text, and the exits it guards (log records from any logger, tracebacks, files)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from urllib.parse import quote, quote_plus

import pytest

from swevis import fsutil
from swevis.redaction import (
    MIN_SECRET_CHARS,
    looks_like_credential,
    redact,
    redact_data,
    register_credentials,
    register_secret,
    registered_names,
)

KEY = "sk-proj-5c1e9a77d2b04f8e-redact-me"
ODD = 'p@ss "wörd"/\\ü&key=1+2'  # every character some encoding escapes


@pytest.mark.parametrize(
    "name",
    ["GITHUB_PAT", "HF_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "SMTP_PASSWD", "MY_APIKEY",
     "GH_ACCESSTOKEN", "SENTRY_DSN", "npm_token", "pypi-credentials", "SESSION_COOKIE", "BASIC_AUTH"],
)
def test_credential_names(name):
    assert looks_like_credential(name)


@pytest.mark.parametrize("name", ["PATH", "PYTHONPATH", "LANG", "HOME", "PWD", "TERM", "KEYBOARD_LAYOUT_X", "TOKENIZERS_PARALLELISM", "PATCH_DIR"])
def test_ordinary_names(name):
    assert not looks_like_credential(name)


def test_register_credentials_takes_only_credential_names_with_values():
    environ = {"HF_TOKEN": "hf_0123456789abcdef", "LANG_CODE": "en_US.UTF-8-long", "GITHUB_PAT": "", "EMPTY_KEY": "short"}
    assert register_credentials(["HF_TOKEN", "LANG_CODE", "GITHUB_PAT", "EMPTY_KEY", "UNSET_TOKEN"], environ) == ["HF_TOKEN"]
    assert registered_names() == ["HF_TOKEN"]
    assert redact("en_US.UTF-8-long hf_0123456789abcdef") == "en_US.UTF-8-long [REDACTED:HF_TOKEN]"


def test_short_and_empty_values_are_not_registered():
    assert not register_secret("", "K") and not register_secret(None, "K")
    assert not register_secret("EMPTY", "K")  # a local server's placeholder key: not a secret
    assert not register_secret("k" * (MIN_SECRET_CHARS - 1), "K")
    assert redact("EMPTY, dummy, kkkkkkk") == "EMPTY, dummy, kkkkkkk" and registered_names() == []
    assert register_secret("k" * MIN_SECRET_CHARS, "K") and registered_names() == ["K"]


def test_nothing_registered_changes_nothing():
    text = f"Bearer {KEY}"
    assert redact(text) is text and redact_data({"a": [text]}) == {"a": [text]}


@pytest.mark.parametrize(
    "encode",
    [
        lambda v: v,
        lambda v: json.dumps({"auth": f"Bearer {v}"}),
        lambda v: json.dumps({"auth": f"Bearer {v}"}, ensure_ascii=False),
        lambda v: json.dumps({"auth": f"Bearer {v}"}).replace("/", "\\/"),
        lambda v: repr({"auth": f"Bearer {v}"}),
        lambda v: "https://h/?key=" + quote(v, safe=""),
        lambda v: "https://h/?key=" + quote_plus(v),
        lambda v: f"{v[:9]}\n    {v[9:]}",  # wrapped by the server
        lambda v: json.dumps(f"{v[:9]}\n{v[9:]}"),  # wrapped, then JSON-escaped
        lambda v: " ".join(f"{v[:5]}\n{v[5:]}".split()),  # wrapped, then put on one line
    ],
    ids=["raw", "json", "json-unicode", "json-slash", "repr", "url", "url-plus", "split", "split-json", "split-one-line"],
)
@pytest.mark.parametrize("value", [KEY, ODD], ids=["plain", "odd"])
def test_every_form_of_a_value_is_redacted(value, encode):
    register_secret(value, "THE_KEY")
    text = f"error 401: {encode(value)} (end)"
    out = redact(text)
    assert "[REDACTED:THE_KEY]" in out and out.endswith("(end)") and out.startswith("error 401: ")
    assert value not in out and value[3:-3] not in out


def test_redact_data_reaches_every_string_and_keeps_the_shape():
    register_secret(KEY, "K")
    data = {"messages": [{"role": "user", "content": [{"type": "text", "text": f"env: X={KEY}"}]}], KEY: (1, KEY), "n": 3}
    out = redact_data(data)
    assert KEY not in json.dumps(out)
    assert out["messages"][0]["content"][0]["text"] == "env: X=[REDACTED:K]" and out["n"] == 3
    assert out["[REDACTED:K]"] == (1, "[REDACTED:K]")


def test_log_records_of_any_logger_and_handler_are_redacted(tmp_path):
    register_secret(KEY, "K")
    handler = logging.FileHandler(tmp_path / "a.log")
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    child = logging.getLogger("swevis.test.child.deep")
    child.addHandler(handler)  # a handler of the child logger: no root filter would see it
    child.setLevel(logging.INFO)
    try:
        child.info("header %s", {"Authorization": f"Bearer {KEY}"})
        child.warning("%(key)s quoted", {"key": KEY})
        try:
            raise RuntimeError(f"server said: Bearer {KEY}")
        except RuntimeError:
            child.exception("failed")
    finally:
        child.removeHandler(handler)
        handler.close()
    text = (tmp_path / "a.log").read_text()
    assert KEY not in text and text.count("[REDACTED:K]") == 3  # the traceback: in its last line


def test_records_made_before_the_secret_was_registered_are_not_touched(caplog):
    with caplog.at_level(logging.INFO):
        logging.getLogger("swevis.test").info("value %s", "sk-late-0123456789")
    register_secret("sk-late-0123456789", "LATE")
    assert "sk-late-0123456789" in caplog.text  # created before: nothing to redact it with then


def test_uncaught_traceback_is_redacted():
    code = (
        "from swevis.redaction import register_secret\n"
        f"register_secret({KEY!r}, 'K')\n"
        f"raise RuntimeError('echo: Bearer ' + {KEY!r})\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1 and "RuntimeError: echo: Bearer [REDACTED:K]" in proc.stderr
    assert KEY not in proc.stderr


def test_text_written_through_fsutil_is_redacted_bytes_are_not(tmp_path):
    register_secret(KEY, "K")
    fsutil.write_json_atomic(tmp_path / "r.json", {"error": f"401 Bearer {KEY}"})
    fsutil.write_atomic(tmp_path / "raw.bin", KEY.encode())
    assert json.loads((tmp_path / "r.json").read_text()) == {"error": "401 Bearer [REDACTED:K]"}
    assert (tmp_path / "raw.bin").read_bytes() == KEY.encode()  # images and databases stay byte for byte


def test_every_live_profiles_key_is_registered_not_only_the_one_in_use():
    from swevis.models import register_api_keys

    profiles = {
        "a": {"backend": "openai", "base_url": "http://a/v1", "model_id": "m", "api_key_env": "A_KEY"},
        "b": {"backend": "openai", "base_url": "http://b/v1", "model_id": "m", "api_key_env": "B_VAR"},
        "played_back": {"backend": "playback", "api_key_env": "R_KEY"},
        "local": {"backend": "openai", "base_url": "http://c/v1", "model_id": "m", "api_key_env": "C_KEY"},
    }
    environ = {"A_KEY": "sk-a-0123456789", "B_VAR": "sk-b-0123456789", "R_KEY": "sk-r-0123456789", "C_KEY": "EMPTY"}
    assert register_api_keys(profiles, environ) == ["A_KEY", "B_VAR"]
    assert redact("sk-a-0123456789 sk-b-0123456789 sk-r-0123456789 EMPTY") == "[REDACTED:A_KEY] [REDACTED:B_VAR] sk-r-0123456789 EMPTY"


def test_a_base64_image_url_is_kept_byte_for_byte():
    register_secret(KEY, "K")
    url = "data:image/png;base64," + "QUJD" * 1000 + KEY  # not text: never rewritten
    out = redact_data([{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": KEY}])
    assert out[0]["image_url"]["url"] == url and out[1]["text"] == "[REDACTED:K]"
