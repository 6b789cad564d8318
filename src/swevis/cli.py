"""`swevis ...`: each stage's tools by hand. Subcommands live in their stage's own `cli` module."""

from __future__ import annotations

import argparse
import importlib
import sys

from swevis import __version__
from swevis.arguments import OneLineParser
from swevis.errors import InfrastructureError, SwevisError
from swevis.redaction import redact

# name -> (module with add_arguments(parser) and run(args) -> int, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tasks": ("swevis.tasks.cli", "list, sample and check out task instances"),
    "evaluate": ("swevis.harness.cli", "evaluate a patch on an instance with the local runner"),
    "images": ("swevis.sandbox.cli", "build the bundled sample's Docker images without a registry"),
    "index": ("swevis.index.cli", "build or update the repository index of a checkout"),
    "localize": ("swevis.localize.cli", "rank candidate edit sites for an issue and package their context"),
    "agent": ("swevis.agents.cli", "run one agent on one instance (replay or live)"),
    "replay": ("swevis.counterfactual.cli", "counterfactual cost of a recorded trajectory under each condition"),
    "render": ("swevis.render.cli", "render a code window to PNG pages and print its token accounting"),
    "estimate": ("swevis.analysis.estimate", "expected calls, prompt tokens and spend of a planned run from past runs"),
}


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
    """The message on one line, whatever a library put in it, with no secret in it."""
    return " ".join(redact(str(exc)).split())


if __name__ == "__main__":
    sys.exit(main())
