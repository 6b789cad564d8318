"""`swevis ...`: each stage's tools by hand. Subcommands live in their stage's own `cli` module."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable

from swevis import __version__
from swevis.arguments import OneLineParser
from swevis.errors import InfrastructureError, SwevisError
from swevis.redaction import redact

# name -> (module with add_arguments(parser) and run(args) -> int, one-line help). Only the
# chosen subcommand's module is imported: a stage's imports (polars, mini-swe-agent, docker,
# tree-sitter, ...) cost a second or more, and `swevis --help` or `swevis index` needs none
# of the others'.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tasks": ("swevis.tasks.cli", "list, sample and check out task instances"),
    "evaluate": ("swevis.harness.cli", "evaluate a patch on an instance with the local runner"),
    "images": ("swevis.sandbox.cli", "build the bundled sample's Docker images without a registry"),
    "index": ("swevis.index.cli", "build or update the repository index of a checkout"),
    "localize": ("swevis.localize.cli", "rank candidate edit sites for an issue and package their context"),
    "devset": ("swevis.localize.devset.cli", "the localization development set: build, measure, cross-validate, fit"),
    "agent": ("swevis.agents.run.cli", "run one agent on one instance (playback or live)"),
    "replay": ("swevis.counterfactual.cli", "counterfactual cost of a recorded trajectory under each condition"),
    "render": ("swevis.render.cli", "render a code window to PNG pages and print its token accounting"),
    "estimate": ("swevis.analysis.estimate", "expected calls, prompt tokens and spend of a planned run from past runs"),
}

# Exit status when the reader of stdout went away (`swevis estimate | head`): the shell's
# status of a process ended by SIGPIPE, as `cat` or `yes` report it under `set -o pipefail`.
BROKEN_PIPE = 128 + 13


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser with the arguments of `commands` (None: every subcommand). The others are
    listed by name and one-line help only, so their modules are not imported."""
    full = set(SUBCOMMANDS) if commands is None else set(commands)
    parser = OneLineParser(prog="swevis", description=__doc__)
    parser.add_argument("--version", action="version", version=f"swevis {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        if name not in full:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        sp = sub.add_parser(name, help=help_text, description=module.__doc__)
        module.add_arguments(sp)
        sp.set_defaults(_run=module.run)
    return parser


def chosen_command(argv: list[str]) -> str | None:
    """The subcommand argv names: its first word that is not an option (the top level takes
    no option with a value, so nothing else can come first)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # mini-swe-agent prints a banner on stdout when first imported (by whichever stage loads
    # it first); stdout is the subcommands' output (`swevis evaluate ... | jq`)
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    try:
        args = build_parser([c for c in [chosen_command(argv)] if c in SUBCOMMANDS]).parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed as one line
        return int(exc.code or 0)
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        return 130
    except InfrastructureError as exc:  # the machinery failed, not the input
        print(f"swevis: infrastructure failure: {_one_line(exc)}", file=sys.stderr)
        return 1
    except SwevisError as exc:  # a clear one-line error for the user, not a traceback
        print(f"swevis: error: {_one_line(exc)}", file=sys.stderr)
        return 2


def _quiet_broken_pipe() -> int:
    """The reader of stdout is gone: say nothing, and point stdout at /dev/null so that the
    interpreter's final flush does not print a second BrokenPipeError (Python's own recipe,
    docs.python.org/3/library/signal.html#note-on-sigpipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (a test's capture)
        pass
    return BROKEN_PIPE


def _one_line(exc: Exception) -> str:
    """The message on one line, whatever a library put in it, with no secret in it."""
    return " ".join(redact(str(exc)).split())


if __name__ == "__main__":
    sys.exit(main())
