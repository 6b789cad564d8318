"""`swevis ...`: each stage's tools by hand. Subcommands live in their stage's own `cli` module."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from swevis import __version__
from swevis.errors import InfrastructureError, SwevisError

# name -> (module with add_arguments(parser) and run(args) -> int, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tasks": ("swevis.tasks.cli", "list, sample and check out task instances"),
    "evaluate": ("swevis.harness.cli", "evaluate a patch on an instance with the local runner"),
    "images": ("swevis.harness.images_cli", "build the bundled sample's Docker images without a registry"),
    "index": ("swevis.index.cli", "build or update the repository index of a checkout"),
    "localize": ("swevis.localize.cli", "rank candidate edit sites for an issue and package their context"),
    "agent": ("swevis.agents.cli", "run one agent on one instance (replay or live)"),
    "replay": ("swevis.agents.replay_cli", "counterfactual cost of a recorded trajectory under each condition"),
    "render": ("swevis.render.cli", "render a code window to PNG pages and print its token accounting"),
    "estimate": ("swevis.analysis.estimate", "expected calls, prompt tokens and spend of a planned run from past runs"),
}


# ---- the argument and input checks every subcommand shares: each failure is one SwevisError line


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


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="swevis", description=__doc__)
    parser.add_argument("--version", action="version", version=f"swevis {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        sp = sub.add_parser(name, help=help_text, description=module.__doc__)
        module.add_arguments(sp)
        sp.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed as one line
        return int(exc.code or 0)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except InfrastructureError as exc:  # the machinery failed, not the input
        print(f"swevis: infrastructure failure: {_one_line(exc)}", file=sys.stderr)
        return 1
    except SwevisError as exc:  # a clear one-line error for the user, not a traceback
        print(f"swevis: error: {_one_line(exc)}", file=sys.stderr)
        return 2


def _one_line(exc: Exception) -> str:
    """The message on one line, whatever a library put in it."""
    return " ".join(str(exc).split())


if __name__ == "__main__":
    sys.exit(main())
