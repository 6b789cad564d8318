"""Evaluate a patch on one instance with the local test runner and print the eval record."""

from __future__ import annotations

import argparse
import json

from swevis.arguments import output_file, positive_float, read_text, require_file
from swevis.config import load_config
from swevis.errors import SwevisError
from swevis.harness.local import evaluate_patch
from swevis.tasks import load_instances
from swevis.tasks.repos import ensure_mirror
from swevis.tasks.sources import open_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance_id")
    parser.add_argument("--patch", help="the patch file; 'gold' uses the instance's gold patch (default)", default="gold")
    parser.add_argument("--instances", default=None, help="instances.jsonl to read the row from (default: the configured source)")
    parser.add_argument("--config", default="config.yaml")
    parser.add_argument("--log", help="write the test log here")
    parser.add_argument("--timeout", type=positive_float, default=1800, help="seconds the test command may run")


def run(args: argparse.Namespace) -> int:
    patch = None if args.patch == "gold" else read_text(args.patch, "patch file")
    if args.instances:
        require_file(args.instances, "instances file")
    if args.log:
        output_file(args.log, "--log")
    cfg = load_config(args.config)["tasks"]
    rows = load_instances(args.instances) if args.instances else open_source(cfg).load()
    row = next((r for r in rows if r["instance_id"] == args.instance_id), None)
    if row is None:
        source = args.instances or f"the task source of {args.config}"
        raise SwevisError(f"unknown instance id {args.instance_id}: not in {source}")
    patch = row["patch"] if patch is None else patch
    mirror = ensure_mirror(row["repo"], cfg["repo_cache"], commits=[row["base_commit"]], remote_url=cfg["remote_url"])
    record = evaluate_patch(row, patch, mirror["mirror"], log_path=args.log, timeout_s=args.timeout)
    print(json.dumps(record, indent=2))
    return 0 if record["resolved"] else 1
