"""Evaluate a patch on one instance with the local test runner and print the eval record.

Exit status: 0 resolved, 1 not resolved, 3 could not grade (the harness failed: the test
command timed out, test_patch does not apply, the repository could not be fetched; the
reason on stderr), 2 a bad argument."""

from __future__ import annotations

import argparse
import json
import sys

from swevis.arguments import add_config_argument, output_file, positive_float, read_nonempty_text, read_text
from swevis.errors import InfrastructureError, SwevisError

RESOLVED, NOT_RESOLVED, NOT_GRADED = 0, 1, 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance_id")
    parser.add_argument("--patch", help="the patch file; 'gold' uses the instance's gold patch (default)", default="gold")
    parser.add_argument("--instances", default=None, help="instances.jsonl to read the row from (default: the configured source)")
    add_config_argument(parser)
    parser.add_argument("--log", help="write the test log here")
    parser.add_argument("--timeout", type=positive_float, default=1800, help="seconds the test command may run")


def instance_rows(path: str | None, tasks_cfg: dict) -> list[dict]:
    """The rows of --instances (UTF-8 JSONL with at least one row), else the configured source."""
    from swevis.tasks import load_instances
    from swevis.tasks.sources import open_source

    if path is None:
        return open_source(tasks_cfg).load()
    read_nonempty_text(path, "instances file")  # a binary or empty file is refused by name
    rows = load_instances(path)
    if not rows:
        raise SwevisError(f"instances file {path} holds no rows")
    return rows


def run(args: argparse.Namespace) -> int:
    from swevis.config import load_user_config

    patch = None if args.patch == "gold" else read_text(args.patch, "patch file")
    if args.log:
        output_file(args.log, "--log")
    config, config_name = load_user_config(args.config)
    rows = instance_rows(args.instances, config["tasks"])
    row = next((r for r in rows if r["instance_id"] == args.instance_id), None)
    if row is None:
        source = args.instances or f"the task source of {config_name}"
        raise SwevisError(f"unknown instance id {args.instance_id}: not in {source}")
    try:
        record = _evaluate(row, row["patch"] if patch is None else patch, config["tasks"], args)
    except InfrastructureError as exc:
        record = {"instance_id": row["instance_id"], "resolved": False, "infra_failure": True, "error": str(exc)}
    print(json.dumps(record, indent=2))
    if record.get("infra_failure"):
        print(f"swevis: could not grade {row['instance_id']}: {' '.join(str(record.get('error')).split())}",
              file=sys.stderr)
        return NOT_GRADED
    return RESOLVED if record["resolved"] else NOT_RESOLVED


def _evaluate(row: dict, patch: str, tasks_cfg: dict, args: argparse.Namespace) -> dict:
    from swevis.harness.local import evaluate_patch
    from swevis.tasks.repos import ensure_mirror

    mirror = ensure_mirror(row["repo"], tasks_cfg["repo_cache"], commits=[row["base_commit"]],
                           remote_url=tasks_cfg["remote_url"])
    return evaluate_patch(row, patch, mirror["mirror"], log_path=args.log, timeout_s=args.timeout)
