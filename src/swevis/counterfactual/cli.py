"""`swevis replay FILE_OR_DIR [--out DIR] [--conditions text,r1,r3,r5,r7] [--model qwen3.5]`: the
counterfactual cost of recorded trajectories under each representation (and, recorded mode
only, with the working memory in front of one: mem, mem+r3).

A trajectory of any known format (mini-swe-agent 1.x/2.x, SWE-agent, OpenHands, swevis) is
replayed from its recorded observations (no environment; --repo DIR checks the windows
against the repository at base_commit), or with --reexecute in a fresh checkout of the
configured task (always for swevis traj.json). The table goes to stdout and a progress line
per trajectory to stderr. With text among the conditions, recorded mode also reports the
ceiling (swevis.counterfactual.ceiling): the code windows' share of the cumulative prompt, the
reduction rendering exactly them at T/N would give, the share of that saving each condition
realizes and the gap by term, and per condition its page family's ceiling and the share
realized in prompt tokens and on the cache-aware bill. Nothing is written unless --out DIR asks for the per-step
records (DIR/per_step.parquet), the table (DIR/summary.csv) and the ceiling (DIR/ceiling.csv).

Recorded mode passes every call through the profile's provider prefix cache
(swevis.models.prefix_cache; models.<name>.prompt_cache names the family): each row reports
the prompt tokens, the cached ones (cached_prompt_tokens) and the cache-aware spend at the
profile's prices (spend_cache_aware; empty when the profile sets none).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from swevis.arguments import add_config_argument, input_folder, output_folder
from swevis.conditions import FAMILIES
from swevis.errors import SwevisError


def replay_conditions(value: str) -> list:
    """argparse `type=` for --conditions: an empty name between commas (text,,r3) is a typo,
    not a wish to skip it. The grammar itself is swevis.counterfactual.replay's, imported
    when the option is given (that module loads the agents' memory)."""
    names = value.split(",")
    if any(n.strip() for n in names) and not all(n.strip() for n in names):
        raise argparse.ArgumentTypeError(f"an empty condition in {value!r} (e.g. text,r1,r3)")
    from swevis.counterfactual.replay import replay_conditions_arg

    return replay_conditions_arg(value)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("traj", help="a trajectory file, or a folder of them (searched recursively)")
    parser.add_argument("--out", default=None, help="write per_step.parquet and summary.csv into this folder (default: write nothing)")
    parser.add_argument("--conditions", type=replay_conditions, default="text,r1,r3,r5,r7",
                        help=f"comma-separated: {', '.join(['text'] + [f'{f.prefix}r<ratio>' for f in FAMILIES])} "
                             "(page families, agents.pages), mask-k<M>, maskb-k<M> (observation masking: the last M "
                             "observations kept), mask-k<M>+ or maskb-k<M>+hist-r<ratio>; mem, mem+r<ratio> add the working memory "
                             "(recorded mode)")
    parser.add_argument("--model", help="profile whose tokenizer and image family account the cost (default: first)")
    parser.add_argument("--repo", help="the repository at base_commit: recorded windows are checked against it")
    parser.add_argument("--reexecute", action="store_true", help="run the commands again in a fresh checkout")
    parser.add_argument("--instance", help="instance id for --reexecute (default: read from the trajectory or its file name)")
    parser.add_argument("--scope", default=None, choices=["normal", "wide"], help="--reexecute only")
    add_config_argument(parser)
    parser.add_argument("--cache", default=".swevis-cache", help="mirrors and checkouts for --reexecute")
    parser.add_argument("--json", action="store_true")


def _reexecute(args: argparse.Namespace, path: Path, traj, cfg: dict, model: str, profile: dict) -> list[dict]:
    from swevis.agents.run.cli import prepare_instance
    from swevis.agents.registry import agent_kind, load_modules
    from swevis.agents.run.spec import RunInputs
    from swevis.counterfactual.replay import FOREIGN_AGENT, counterfactual_costs

    load_modules(cfg["agents"]["modules"])
    data = json.loads(path.read_text()) if traj.format == "swevis" else {}
    scope = args.scope or data.get("scope", "normal")
    if scope not in ("normal", "wide"):
        raise SwevisError(f"trajectory {path}: its scope {scope!r} is neither normal nor wide; pass --scope")
    memory = [str(c) for c in args.conditions if c.memory]
    if memory:
        raise SwevisError(f"trajectory {path}: condition {memory[0]} replays the memory over recorded observations "
                          "only; a re-execution (--reexecute, a swevis traj.json) cannot take it")
    iid = args.instance or traj.instance_id
    if not iid:
        raise SwevisError(f"trajectory {path}: cannot tell the instance; pass --instance")
    output_folder(args.cache, "--cache")
    row, mirror, co, db = prepare_instance(cfg, iid, args.cache, index=agent_kind(data.get("agent", FOREIGN_AGENT)).needs_index)
    mirror, checkout, db = mirror["mirror"], co["path"], None if db is None else str(db)
    inputs = RunInputs(model=model, profile=profile, row=row, mirror=mirror, agents_cfg=cfg["agents"],
                       localize_cfg=cfg["localize"], render_cfg=cfg["single_read"].get("render", {}), index_db=db,
                       pristine_dir=checkout)
    return counterfactual_costs(path, [str(c) for c in args.conditions], inputs, scope=scope)


def _replay_one(args, path: Path, traj, cfg: dict, model: str, profile: dict) -> tuple[list[dict], list[dict]]:
    """(table rows, step records) of one trajectory, each tagged with the trajectory."""
    from swevis.counterfactual.replay import recorded_costs

    tag = {"trajectory": str(path), "format": traj.format, "instance_id": traj.instance_id, "model": model}
    started = time.perf_counter()
    if args.reexecute or traj.format == "swevis":
        rows = _reexecute(args, path, traj, cfg, model, profile)
        steps = [s for r in rows for s in r.pop("steps")]
        tag["mode"], note = "reexecute", ""
        if any(r["truncated"] for r in rows):
            note = ", truncated: its recorded turns ran out before the agent ended"
    else:
        rows, steps, found = recorded_costs(
            path, [str(c) for c in args.conditions], model_name=model, profile=profile, agents_cfg=cfg["agents"],
            render_cfg=cfg["single_read"].get("render", {}), repo_dir=args.repo, traj=traj,
            prompt_cache=cfg["counterfactual"]["prompt_cache"],
        )
        tag.update(mode="recorded", steps_parsed=found["parsed"], steps_recorded=found["steps"], windows=found["windows"],
                   windows_matching_repo=found["windows_matching_repo"])
        matching = "" if found["windows_matching_repo"] is None else f", {found['windows_matching_repo']} match --repo"
        note = f", {found['parsed']}/{found['steps']} steps parsed, {found['windows']} windows{matching}"
        if traj.truncated:
            note += f", truncated: its last recorded call did not submit (recorded exit {traj.exit_status or 'none'})"
    print(f"replay {path}: {traj.format}{note}, {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return [{**tag, **r} for r in rows], [{**tag, "truncated": rows[0]["truncated"], **s} for s in steps]


def _print_table(rows: list[dict], model: str, profile: dict) -> None:
    print(f"counterfactual cost, accounted as {model}: {profile['tokenizer']} text, {profile['image_family']} images")
    width = max(len("trajectory"), *(len(Path(r["trajectory"]).name) for r in rows))
    named = max(len("condition"), *(len(r["condition"]) for r in rows))
    print(f"prefix cache: {profile.get('prompt_cache') or 'none'} (counterfactual.prompt_cache); "
          "spend cache-aware at the profile's prices")
    print(f"{'trajectory':<{width}} {'format':<17} {'mode':<9} {'condition':<{named}} {'prompt tokens':>13} {'cached':>11} "
          f"{'spend':>10} {'vs text':>8} {'calls':>5} {'pages':>5}  exit")
    for r in rows:
        ratio = f"{r['reduction_vs_text']:.2f}x" if r["reduction_vs_text"] else "-"
        cached = "-" if r["cached_prompt_tokens"] is None else f"{r['cached_prompt_tokens']:,}"
        spend = "-" if r["spend_cache_aware"] is None else f"{r['spend_cache_aware']:.4f}"
        exit_status = f"{r['exit_status']}, truncated" if r["truncated"] else r["exit_status"]
        print(f"{Path(r['trajectory']).name:<{width}} {r['format']:<17} {r['mode']:<9} {r['condition']:<{named}} "
              f"{r['prompt_tokens']:>13,} {cached:>11} {spend:>10} {ratio:>8} {r['calls']:>5} {r['image_pages']:>5}  "
              f"{exit_status}")
    print(f"{_trajectory_count(rows)}; pages: each page sent once, history pages (hist-rN) included")


def _trajectory_count(rows: list[dict[str, Any]]) -> str:
    """How many trajectories the figures pool, and how many of them were cut short."""
    trajectories = {r["trajectory"] for r in rows}
    truncated = {r["trajectory"] for r in rows if r["truncated"]}
    return f"{len(trajectories)} trajectories, {len(truncated)} truncated (cut short before the run ended)"


def _ceiling(args: argparse.Namespace, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ceiling table over the recorded-mode trajectories (none without text or recorded steps)."""
    from swevis.counterfactual.ceiling import ceiling_ratio, ceiling_table

    recorded = [s for s in steps if s.get("mode") == "recorded"]
    names = [str(c) for c in args.conditions]
    if "text" not in names or not recorded:
        return []
    ratios = {str(c): ceiling_ratio(c.observation, c.memory) for c in args.conditions}
    return ceiling_table(recorded, ratios)


def _print_ceiling(rows: list[dict[str, Any]]) -> None:
    """The ceiling table: each gap term as a share of the ceiling's saving (they add up to
    100% less the realized share; a negative term is saving beyond the ceiling)."""
    from swevis.conditions import DEFAULT_FAMILY
    from swevis.counterfactual.ceiling import CODE_TERMS

    share, first = rows[0]["code_share"], rows[0]
    print(f"\nceiling over {first['trajectories']} trajectories, {first['truncated']} truncated: code windows are "
          f"{share:.1%} of the cumulative prompt under text; rendering exactly them at "
          "T/N (no note, page floor or guard) gives the ceiling; realized = the share of its saving, and what the "
          "rest is lost to, in shares of that saving:")
    heads = [t.replace("_", " ") for t in CODE_TERMS]
    print(f"{'condition':<9} {'vs text':>8} {'ceiling':>8} {'realized':>8}  " + ", ".join(heads))
    for r in rows:
        if r["family"] != DEFAULT_FAMILY.name:  # the code windows' terms describe rN only
            continue
        possible = r["text_prompt_tokens"] - r["code_ceiling_prompt_tokens"]
        parts = ", ".join(f"{r['code_gap_' + t] / possible:.1%}".replace("-0.0%", "0.0%") if possible > 0 else "-"
                          for t in CODE_TERMS)
        realized = "-" if r["realized_share"] is None else f"{r['realized_share']:.1%}"
        print(f"{r['condition']:<9} {r['reduction']:>7.3f}x {r['code_ceiling_reduction']:>7.3f}x {realized:>8}  {parts}")


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _times(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}x"


def _print_family_ceiling(rows: list[dict[str, Any]]) -> None:
    """Per condition its page family's ceiling (swevis.counterfactual.ceiling.family_ceiling)
    and the share of it realized, in prompt tokens and on the cache-aware bill (the prompt's part)."""
    print("\nper page family: the reduction, the family's ceiling and the share of its saving realized, in prompt "
          "tokens and on the cache-aware bill (its prompt part; - when the profile sets no price):")
    width = max(len(r["condition"]) for r in rows)
    print(f"{'condition':<{width}} {'family':<10} {'prompt':>8} {'ceiling':>8} {'realized':>8}  {'bill':>8} {'ceiling':>8} "
          f"{'realized':>8}")
    for r in rows:
        print(f"{r['condition']:<{width}} {r['family']:<10} {_times(r['reduction']):>8} {_times(r['family_ceiling_reduction']):>8} "
              f"{_share(r['family_realized_share']):>8}  {_times(r['bill_reduction']):>8} "
              f"{_times(r['family_ceiling_bill_reduction']):>8} {_share(r['family_bill_realized_share']):>8}")


def _write(out: Path, rows: list[dict], steps: list[dict[str, Any]], ceiling: list[dict[str, Any]]) -> None:
    import polars as pl

    out.mkdir(parents=True, exist_ok=True)
    from swevis.table_csv import write_table_csv

    write_table_csv(rows, out / "summary.csv")
    if ceiling:
        write_table_csv(ceiling, out / "ceiling.csv")
    schema = {"windows": pl.List(pl.Utf8), "command": pl.Utf8, "cached_prompt_tokens": pl.Int64,
              "spend_cache_aware": pl.Float64, "prompt_spend_cache_aware": pl.Float64}
    pl.DataFrame(steps, schema_overrides=schema, infer_schema_length=None).write_parquet(out / "per_step.parquet")


def run(args: argparse.Namespace) -> int:
    from swevis.agents.run.cli import model_profile
    from swevis.config import load_user_config
    from swevis.counterfactual.formats import read_trajectory, trajectory_files

    out = None if args.out is None else output_folder(args.out, "--out")
    files = trajectory_files(args.traj, out)
    if args.repo:
        input_folder(args.repo, "--repo")
    if args.scope == "wide" and not args.reexecute:
        raise SwevisError("--scope wide needs --reexecute: recorded observations show the recorded window only")
    cfg, config_name = load_user_config(args.config)
    model, profile = model_profile(cfg, args.model, config_name)
    trajs = [(f, read_trajectory(f)) for f in files]  # every file is read before anything is accounted
    rows: list[dict] = []
    steps: list[dict] = []
    for path, traj in trajs:
        r, s = _replay_one(args, path, traj, cfg, model, profile)
        rows += r
        steps += s
    ceiling = _ceiling(args, steps)
    if out is not None:
        _write(out, rows, steps, ceiling)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        _print_table(rows, model, profile)
        if ceiling:
            _print_ceiling(ceiling)
            _print_family_ceiling(ceiling)
    if out is not None:
        print(f"per-step records: {out / 'per_step.parquet'}; table: {out / 'summary.csv'}", file=sys.stderr)
    return 0
