"""The argument and input checks every subcommand shares: each failure is one SwevisError line
(or, for argparse, one usage line), never a traceback. Imports nothing of swevis but errors,
so each stage's cli module can use it without loading the others."""

from __future__ import annotations

import argparse
import os
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


def read_nonempty_text(path: str | Path, what: str) -> str:
    """A text input that must say something (an issue, a list of instances): UTF-8, no NUL
    bytes (a binary file that happens to decode) and not blank; else a one-line error."""
    text = read_text(path, what)
    return nonempty_text(text, f"{what} {path}")


def nonempty_text(text: str, what: str) -> str:
    """`text` if it is text with something in it; `what` names it in the error."""
    if "\x00" in text:
        raise SwevisError(f"{what} is binary (NUL bytes), not text")
    if not text.strip():
        raise SwevisError(f"{what} is empty")
    return text


def output_folder(path: str | Path, what: str) -> Path:
    """A folder to write into, checked before any work: it may not exist yet, but it must not
    be a file, the nearest folder that exists must be writable, and no name may be too long."""
    p = Path(path)
    _writable_below(p, what)
    if _kind(p) == "file":
        raise SwevisError(f"{what} {p} is a file, not a folder")
    return p


def output_file(path: str | Path, what: str, *, new_folders: bool = True) -> Path:
    """A file to write, checked before any work: not a folder, not below a file, in a folder
    this user may write (one that exists, unless `new_folders`: then the nearest existing
    one), with no name too long."""
    p = Path(path)
    _writable_below(p, what)
    if _kind(p) == "dir":
        raise SwevisError(f"{what} {p} is a folder, not a file")
    if not new_folders and _kind(p.parent) != "dir":
        raise SwevisError(f"{what} {p}: its folder {p.parent} does not exist")
    return p


def _kind(path: Path) -> str | None:
    """'dir', 'file' (anything else that exists) or None; a path the system cannot even look
    up (a name too long) does not exist."""
    try:
        return "dir" if path.is_dir() else "file" if path.exists() else None
    except OSError:
        return None


def _writable_below(path: Path, what: str) -> None:
    """The names of `path` that do not exist yet can be created: each within the file
    system's name length, under the nearest existing folder, which this user may write."""
    existing = next((a for a in [path, *path.parents] if _kind(a)), Path("."))
    if existing != path and _kind(existing) != "dir":
        raise SwevisError(f"{what} {path}: {existing} is a file, not a folder")
    new_names = path.relative_to(existing).parts if existing != path else ()
    limit = _name_max(existing)
    long_name = next((n for n in new_names if len(os.fsencode(n)) > limit), None)
    if long_name is not None:
        raise SwevisError(f"{what} {path}: the name {long_name[:20]}... is longer than {limit} bytes")
    if new_names and not os.access(existing, os.W_OK | os.X_OK):
        raise SwevisError(f"{what} {path}: the folder {existing} is not writable")
    if not new_names and not os.access(path, os.W_OK | (os.X_OK if _kind(path) == "dir" else 0)):
        raise SwevisError(f"{what} {path} is not writable")


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):  # no such limit on this system
        return 255


def input_folder(path: str | Path, what: str) -> Path:
    """An existing folder to read, or a one-line error naming it."""
    p = Path(path)
    if not p.is_dir():
        raise SwevisError(f"{what} {p} {'is not a folder' if p.exists() else 'does not exist'}")
    return p


def add_config_argument(parser: argparse.ArgumentParser, what: str = "") -> None:
    """--config, the same on every subcommand: a file over the schema's defaults; without it
    ./config.yaml when there is one, else the defaults alone (no workflow folder needed)."""
    parser.add_argument("--config", default=None, metavar="FILE",
                        help=f"config file{what} over the schema's defaults (default: ./config.yaml if there is one, else the defaults)")


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


