"""The argument and input checks every subcommand shares: each failure is one SwevisError line
(or, for argparse, one usage line), never a traceback. Imports nothing of swevis but errors,
so each stage's cli module can use it without loading the others."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, NoReturn

from swevis.errors import SwevisError


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump), like every other user error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def require_file(path: str | Path, what: str) -> Path:
    """`path` as a readable file, or a one-line error naming it."""
    p = Path(path)
    if not p.exists():
        raise SwevisError(f"{what} {p} does not exist")
    if not p.is_file():
        raise SwevisError(f"{what} {p} is not a file")
    return p


def read_text(path: str | Path, what: str) -> str:
    """A UTF-8 text file's content; missing, unreadable or undecodable files are one-line errors."""
    p = require_file(path, what)
    try:
        return p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SwevisError(f"{what} {p} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SwevisError(f"{what} {p} is not UTF-8 text (byte {exc.start})") from None


def read_json_object(path: str | Path, what: str) -> dict[str, Any]:
    """A JSON file whose top level is an object; anything else is a one-line error."""
    text = read_text(path, what)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SwevisError(f"{what} {path} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if not isinstance(data, dict):
        raise SwevisError(f"{what} {path} is not a JSON object (its top level is a {type(data).__name__})")
    return data


def output_folder(path: str | Path, what: str) -> Path:
    """A folder to write into: it may not exist yet, but it must not be a file."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise SwevisError(f"{what} {p} is a file, not a folder")
    return p


def output_file(path: str | Path, what: str) -> Path:
    """A file to write: not a folder, and not below a file."""
    p = Path(path)
    if p.is_dir():
        raise SwevisError(f"{what} {p} is a folder, not a file")
    output_folder(next((a for a in p.parents if a.exists()), Path(".")), f"{what} {p}: its folder")
    return p


def input_folder(path: str | Path, what: str) -> Path:
    """An existing folder to read, or a one-line error naming it."""
    p = Path(path)
    if not p.is_dir():
        raise SwevisError(f"{what} {p} {'is not a folder' if p.exists() else 'does not exist'}")
    return p


def _positive(value: str, parse: type, what: str) -> Any:
    try:
        x = parse(value)
    except ValueError:
        x = 0
    if not 0 < x < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive {what}, got {value!r}")
    return x


def positive_int(value: str) -> int:
    """argparse `type=` for counts such as --top-k."""
    return _positive(value, int, "integer")


def positive_float(value: str) -> float:
    """argparse `type=` for timeouts and sizes."""
    return _positive(value, float, "number")


