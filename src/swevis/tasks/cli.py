"""List, sample and check out task instances (the same code the workflow runs)."""

from __future__ import annotations

import argparse
import json
from collections import Counter

from swevis.arguments import add_config_argument, output_file
from swevis.errors import SwevisError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["sample", "checkout"], help="sample: print (or write) the configured sample; checkout: mirror and check out instances")
    parser.add_argument("instance_ids", nargs="*", help="checkout: which instances (default: the whole sample)")
    add_config_argument(parser)
    parser.add_argument("-o", "--output", help="sample: write the rows as JSONL here")


def run(args: argparse.Namespace) -> int:
    if args.action == "sample" and args.instance_ids:
        raise SwevisError(f"instance ids ({' '.join(args.instance_ids)}) are for `swevis tasks checkout`; sample takes none")
    if args.output and args.action != "sample":
        raise SwevisError("-o/--output is for `swevis tasks sample`")
    from swevis.config import load_user_config
    from swevis.tasks import write_instances
    from swevis.tasks.repos import checkout_instance, ensure_mirror
    from swevis.tasks.sources import select_instances

    if args.output:
        output_file(args.output, "-o/--output")
    config, config_name = load_user_config(args.config)
    cfg = config["tasks"]
    rows = select_instances(cfg)
    if args.action == "sample":
        if args.output:
            try:
                write_instances(rows, args.output)
            except OSError as exc:
                raise SwevisError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        for repo, count in sorted(Counter(r["repo"] for r in rows).items()):
            print(f"{count:4d}  {repo}")
        print(f"{len(rows):4d}  instances in all")
        return 0
    wanted = set(args.instance_ids) or {r["instance_id"] for r in rows}
    unknown = sorted(wanted - {r["instance_id"] for r in rows})
    if unknown:
        raise SwevisError(
            f"unknown instance id(s) {', '.join(unknown)}: not in the sample of {config_name} (see `swevis tasks sample`)"
        )
    for row in rows:
        if row["instance_id"] not in wanted:
            continue
        mirror = ensure_mirror(
            row["repo"], cfg["repo_cache"], commits=[row["base_commit"]], remote_url=cfg["remote_url"],
            clone_timeout_s=cfg["clone_timeout_s"], stall_timeout_s=cfg["stall_timeout_s"],
        )
        print(json.dumps(checkout_instance(row, mirror["mirror"], cfg["checkout_root"])))
    return 0
