"""Secret values never leave the process in text: one registry of the values this process
must not write, and one ``redact`` every exit for text goes through.

What is registered: the API key of a live model profile when its model is built
(swevis.models.openai_backend; `swevis agent run` registers every live profile's key), and
the value of every pass-through variable whose name looks like a credential
(looks_like_credential) when an agent's environment is made (swevis.sandbox.environments).

Where text leaves the process, and how it is redacted there:

- log records: a LogRecord factory (installed with the first secret) redacts each record as
  it is made, whichever logger or handler it goes to -- a filter on the root logger would
  miss records of child loggers, which skip the root's filters when they propagate;
- uncaught exceptions: ``sys.excepthook`` prints the traceback redacted;
- one-line errors: the CLI's, and the model errors' (redacted before they are cut to one
  line, so no part of a key is left at the cut);
- record files: every text written through swevis.fsutil (traj.json, patch.diff, journals,
  eval records, ledgers, provenance, the response cache) is redacted on the way to disk;
- requests and responses: a model's prepared messages and the endpoint's answer are
  redacted before they are sent, cached or read (swevis.models), so an observation that
  printed a token is not sent to the endpoint either.

A value is found raw, JSON-escaped (also with "/" escaped), Python-escaped or URL-encoded,
and also with whitespace or an escaped line break between its characters (a body that
wrapped it); it is replaced by ``[REDACTED:<variable name>]``. Values shorter than
MIN_SECRET_CHARS are not redacted: the key "EMPTY" a local server ignores would otherwise
rewrite ordinary text (model output, code) in every record. Not covered: a value drawn
into an image (a rendered page), one inside other encodings (base64 of a Basic auth
header), a fragment a server cut from it (OpenAI's "sk-...abcd"), and text a library
prints without logging.

Why not a library: log-redaction packages match patterns of well-known key formats; we
know the exact values, whatever their format, and need them out of files and messages too.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, quote_plus

log = logging.getLogger(__name__)

MIN_SECRET_CHARS = 8
MARKER = "[REDACTED:{name}]"

# Words of a variable name that make it a credential (the name split at "_", "-" and ".");
# a word ending in one of the ENDINGS counts too (APIKEY, ACCESSTOKEN, CLIENTSECRET).
CREDENTIAL_WORDS = frozenset({
    "KEY", "KEYS", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "PASSPHRASE",
    "PAT", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "COOKIE", "DSN",
})
CREDENTIAL_ENDINGS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD")

# between two characters of a value: whitespace, or a line break escaped in JSON or a repr
_GAP = r"(?:\s|\\[nrt])*"



@dataclass(frozen=True)
class Redactor:
    """(pattern of every form of one value, its marker) per value, longest value first (one
    that contains another is replaced whole). One pattern per value, without capturing
    groups: Python's re scans that ~8x faster than one alternation of named groups.
    Replaced whole when a value is registered, so a reader never sees half of an update."""

    rules: tuple[tuple[re.Pattern[str], str], ...]

    def sub(self, text: str) -> str:
        for pattern, marker in self.rules:
            text = pattern.sub(marker, text)
        return text


_lock = threading.Lock()
_secrets: dict[str, str] = {}  # value -> the variable name it came from
_active: Redactor | None = None
_installed = False
_short_names: set[str] = set()  # variables already said to be too short to redact


def looks_like_credential(name: str) -> bool:
    """Whether an environment variable's name says it holds a credential (GITHUB_PAT,
    HF_TOKEN, OPENAI_API_KEY, DB_PASSWORD; not PATH, PYTHONPATH, LANG)."""
    words = [w for w in re.split(r"[_.\-]+", name.upper()) if w]
    return any(w in CREDENTIAL_WORDS or w.endswith(CREDENTIAL_ENDINGS) for w in words)


def encodings(value: str) -> set[str]:
    """The forms a value takes in text we write: raw, JSON- and Python-escaped, URL-encoded."""
    in_json = json.dumps(value)[1:-1]
    forms = {
        value,
        in_json,
        in_json.replace("/", "\\/"),  # JSON that escapes "/" too (PHP, some Java encoders)
        json.dumps(value, ensure_ascii=False)[1:-1],
        repr(value)[1:-1],
        quote(value, safe=""),
        quote_plus(value, safe=""),
    }
    return {f for f in forms if f}


def _spread(form: str) -> str:
    """A regular expression for `form` that also matches it with gaps between its characters."""
    return _GAP.join(re.escape(ch) for ch in form)


def _compile(secrets: Mapping[str, str]) -> Redactor | None:
    rules = []
    for value in sorted(secrets, key=len, reverse=True):
        forms = sorted(encodings(value), key=len, reverse=True)  # the longest form wins where two overlap
        pattern = re.compile("|".join(f"(?:{_spread(f)})" for f in forms))
        rules.append((pattern, MARKER.format(name=secrets[value]).replace("\\", "\\\\")))
    return Redactor(tuple(rules)) if rules else None


def register_secret(value: str | None, name: str) -> bool:
    """Never write `value` (the content of variable `name`) from now on. Returns whether it
    is redacted: an empty value is nothing to hide, a short one is not (see the module doc)."""
    if not value:
        return False
    if len(value) < MIN_SECRET_CHARS:
        if name in _short_names:
            return False
        _short_names.add(name)
        log.info("%s holds fewer than %d characters: not redacted from outputs (too short to tell from ordinary text)",
                 name, MIN_SECRET_CHARS)
        return False
    global _active
    with _lock:
        if value not in _secrets:
            _secrets[value] = name
            _active = _compile(_secrets)
        _install_hooks()
    return True


def register_credentials(names: Iterable[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """Register the values of those variables among `names` whose names look like credentials
    (looks_like_credential); returns the names registered."""
    environ = os.environ if environ is None else environ
    return [n for n in names if looks_like_credential(n) and register_secret(environ.get(n), n)]


def forget_secrets() -> None:
    """Drop every registered value (tests; a process that ends needs no clean-up)."""
    global _active
    with _lock:
        _secrets.clear()
        _active = None


def registered_names() -> list[str]:
    """The variables whose values are redacted (never the values)."""
    with _lock:
        return sorted(set(_secrets.values()))


def redact(text: str) -> str:
    """`text` with every registered value replaced by its marker (see the module doc)."""
    active = _active
    return text if active is None or not text else active.sub(text)


def redact_data(obj: Any) -> Any:
    """A copy of JSON-like data (dicts, lists, strings) with every string redacted; data that
    holds no secret is returned as it is. A base64 data URL (an image part) is not text and
    is kept byte for byte: scanning a page's megabyte for a key costs ~40 ms and finds none."""
    if _active is None:
        return obj
    if isinstance(obj, str):
        return obj if obj.startswith("data:") and ";base64," in obj[:100] else redact(obj)
    if isinstance(obj, dict):
        return {redact_data(k): redact_data(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(redact_data(v) for v in obj)
    return obj


# ---------------------------------------------------------------- hooks


def _redact_record(record: logging.LogRecord) -> None:
    """Replace a record's message (and its traceback text) by the redacted text, formatted now."""
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: logging reports it, with the arguments redacted
        record.msg, record.args = redact(str(record.msg)), redact_data(record.args)
        return
    redacted = redact(message)
    if redacted != message:
        record.msg, record.args = redacted, ()
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


def _excepthook(previous):
    def hook(exc_type, exc, tb):
        if _active is None:
            return previous(exc_type, exc, tb)
        sys.stderr.write(redact("".join(traceback.format_exception(exc_type, exc, tb))))
        sys.stderr.flush()

    return hook


def _install_hooks() -> None:
    """Once per process: the record factory and the excepthook (see the module doc)."""
    global _installed
    if _installed:
        return
    make_record = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        if _active is not None:
            _redact_record(record)
        return record

    logging.setLogRecordFactory(factory)
    sys.excepthook = _excepthook(sys.excepthook)
    _installed = True
