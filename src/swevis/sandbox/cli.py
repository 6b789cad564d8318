"""`swevis images build`: the Docker images the bundled sample needs, without any registry.

A debootstrapped Debian base, the testbed environment, and one image per instance named as
the Docker harness (harness.namespace, harness.instance_image_tag) and the agents' Docker
sandbox look it up. Images whose content has not changed are kept."""

from __future__ import annotations

import argparse
import json

from swevis.arguments import add_config_argument
from swevis.errors import SwevisError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["build"], help="build: make or keep every image")
    add_config_argument(parser)
    parser.add_argument("--instances", help="comma-separated instance ids (default: the configured sample and the probe sets its matrix names)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    from swevis.config import load_user_config
    from swevis.sandbox.images import build_images, instance_image_name
    from swevis.tasks.repos import ensure_mirror
    from swevis.tasks.sources import probe_instances, select_instances

    config, config_name = load_user_config(args.config)
    tasks, harness = config["tasks"], config["harness"]
    if harness["namespace"] is None:
        raise SwevisError("harness.namespace is null (swebench builds its own images); set a namespace, e.g. swevis")
    rows = select_instances(tasks)
    # and the probe sets the matrix names, which the workflow grades in these images too
    rows += probe_instances(sorted({n for cell in config["agents"]["matrix"] for n in cell.get("probe_sets") or []}), rows)
    if args.instances:
        wanted = [i for i in args.instances.split(",") if i]
        known = {r["instance_id"] for r in rows}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise SwevisError(f"unknown instance id {unknown[0]}: not in the configured sample of {config_name}")
        rows = [r for r in rows if r["instance_id"] in wanted]
    mirrors = {}
    for repo in sorted({r["repo"] for r in rows}):
        commits = sorted({r["base_commit"] for r in rows if r["repo"] == repo})
        mirrors[repo] = ensure_mirror(repo, tasks["repo_cache"], commits=commits, remote_url=tasks["remote_url"])["mirror"]
    report = build_images(rows, mirrors, lambda row: instance_image_name(row, harness), config["images"])
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for line in report:
            print(f"{'built' if line['built'] else 'kept ':5}  {line['seconds']:7.1f} s  {line['name']}  {line['id'][:19]}")
    return 0
