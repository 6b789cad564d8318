"""What each `swevis devset STEP` does with its arguments and the config's `devset` section
(the Snakemake adapters under scripts/ call the same functions)."""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import replace
from pathlib import Path

from swevis.arguments import input_folder
from swevis.errors import SwevisError
from swevis.localize.devset.caselists import POLYGLOT, POLYGLOT_FIELDS, CaseFiles, files_digest, read_cases, write_cases
from swevis.localize.devset.crossval import compare_variants
from swevis.localize.devset.bylanguage import (
    POOLS,
    case_language,
    model_rows,
    pooled_held_out,
    print_languages,
    print_shipped,
    replay_check,
)
from swevis.localize.devset.features import ALL_NAMES, View, case_matrix
from swevis.localize.devset.fitting import FitSettings, fit_variant, weights_model, write_weights
from swevis.localize.devset.mining import list_issues, mine, mine_polyglot
from swevis.localize.devset.pasthistory import store_history
from swevis.localize.devset.polyissues import fetch_issue_texts, issue_texts, polyglot_candidates
from swevis.localize.devset.prepare import clone_folders, fetch_mirrors, prepare
from swevis.localize.devset.report import print_hits, print_release, print_variants
from swevis.localize.devset.runner import load_results, measure_cases
from swevis.localize.devset.scoring import release_rows
from swevis.localize.devset.settings import DevsetSettings
from swevis.localize.devset.small import SAMPLE_DIR, heldout_rows, measure_small, small_files, synthetic_groups
from swevis.localize.devset.split import (
    choose_option,
    load_prepared,
    mean_hit,
    measure_split,
    prepare_split,
    read_rows,
    read_split,
)
from swevis.localize.devset.variants import RELEASE, variant, variants
from swevis.localize.evaluation import load_sample_instances, summarize
from swevis.localize.dloc import localize_options
from swevis.localize.rerank import candidate_files, default_model, history_depth


def _paths(args: argparse.Namespace, s: DevsetSettings, *, mirrors: bool = True, out: bool = True) -> tuple[Path, Path]:
    """(mirrors, work folder): the arguments' or the config's; those a step reads must exist."""
    m, o = Path(getattr(args, "mirrors", None) or s.mirrors), Path(getattr(args, "out", None) or s.work)
    return (input_folder(m, "clones folder") if mirrors else m), (input_folder(o, "work folder") if out else o)


def _cases(args, s: DevsetSettings) -> list[dict]:
    """The cases a step reads: the mined fixes and real issues, or (`--polyglot`) the mined
    fixes of other code languages, or (`--polyglot-issues`) their real GitHub issues."""
    if getattr(args, "polyglot_issues", False):
        return read_cases(s.files, s.files.polyglot_issues)
    return read_cases(s.files, s.files.polyglot) if getattr(args, "polyglot", False) else read_cases(s.files)


def run_fetch(args, s: DevsetSettings) -> int:
    mirrors, _ = _paths(args, s, mirrors=False, out=False)
    folders = clone_folders(_cases(args, s))
    if args.split:
        folders += sorted({c["repo"].replace("/", "+") for c in read_split(s.files)})
    fetch_mirrors(mirrors, args.remote or s.remote, folders)
    return 0


def run_lists(args, s: DevsetSettings) -> int:
    mirrors, _ = _paths(args, s, out=False)
    if args.step == "mine" and args.polyglot:
        mine_polyglot(mirrors, args.per_repo or s.per_repo, s.files)
    elif args.step == "mine":
        mine(mirrors, args.per_repo or s.per_repo, s.files)
    else:
        list_issues(mirrors, s.files)
    return 0


def _selected(args, s: DevsetSettings) -> list[dict]:
    """The step's cases (`--repos`: of these repositories only)."""
    return [c for c in _cases(args, s) if not getattr(args, "repos", None) or c["repo"] in args.repos]


def run_issue_candidates(args, s: DevsetSettings) -> int:
    mirrors, _ = _paths(args, s, out=False)
    unknown = sorted(set(args.repos or ()) - set(POLYGLOT))
    if unknown:
        raise SwevisError(f"--repos: {unknown[0]} is no polyglot repository (caselists.POLYGLOT)")
    repos = {r: v for r, v in POLYGLOT.items() if not args.repos or r in args.repos}
    write_cases(Path(args.write), polyglot_candidates(mirrors, args.per_repo or s.per_repo, repos), POLYGLOT_FIELDS)
    return 0


def run_issue_texts(args, s: DevsetSettings) -> int:
    fetch_issue_texts(read_cases(s.files, s.files.polyglot_issues), s.issues_api, Path(args.write))
    return 0


def run_prepare(args, s: DevsetSettings) -> int:
    mirrors, out = _paths(args, s, out=False)
    texts = Path(args.issue_texts) if args.issue_texts else None
    prepare(_selected(args, s), mirrors, out, issue_text=issue_texts(s.issues_api, texts))
    return 0


def run_measure(args, s: DevsetSettings) -> int:
    mirrors, out = _paths(args, s)
    measure_cases(_selected(args, s), mirrors, out, args.limit)
    return 0


def run_history(args, s: DevsetSettings) -> int:
    mirrors, out = _paths(args, s)
    store_history(_selected(args, s), mirrors, out, args.depth or s.history_depth)
    return 0


def run_report(args, s: DevsetSettings) -> int:
    mirrors, out = _paths(args, s, mirrors=args.shipped)  # --shipped may read blobs the stored results lack
    cases = {c["case_id"]: c for c in _cases(args, s)}
    results = load_results(out, set(cases))
    rows = [row for r in results for row in release_rows(r)]
    if args.polyglot or args.polyglot_issues:  # pooled by language
        rows = [{**row, "kind": cases[row["case"]]["language"]} for row in rows]
    print_release(rows, "any")
    print_release(rows, "share")
    if args.shipped:
        _report_shipped(results, cases, mirrors, out, args.polyglot or args.polyglot_issues)
    return 0


def _report_shipped(results: list[dict], cases: dict[str, dict], mirrors: Path, out: Path, polyglot: bool) -> None:
    """File and symbol hit@k of the shipped weights, replayed from the stored features and
    history (as D_loc ranks with them by default), per language or text kind; the release's
    weights replayed against the run's own ranking first, the check that the replay is exact."""
    model = default_model()
    mats = [case_matrix(r, cases[r["case_id"]], out, mirrors, history_depth(model)) for r in results]
    views = [View(r, m, candidate_files(model)) for r, m in zip(results, mats)]
    kinds = [case_language(cases[r["case_id"]]) if polyglot else r["text_kind"] for r in results]
    w = localize_options({})["w_file_symbol"]
    print()
    _print_replay_check(results, views, w)
    print_shipped(model_rows(results, views, kinds, model, "shipped", w))


def _print_replay_check(results: list[dict], views: list[View], w_file_symbol: float) -> None:
    """How many cases' top 10 files the release's weights replay exactly as the run ranked
    them: the check that a replay ranks files as D_loc does."""
    print(f"the release's weights replay {replay_check(results, views, RELEASE, w_file_symbol)} of {len(results)} "
          "cases' top 10 files exactly as the run's D_loc ranked them")


def development_cases(files: CaseFiles, polyglot: bool = False) -> dict[str, dict]:
    """{case id: case} of the development data: the mined fixes and real issues, and
    (`polyglot`) the mined fixes of other code languages."""
    cases = read_cases(files) + (read_cases(files, files.polyglot) if polyglot else [])
    return {c["case_id"]: c for c in cases}


def shipped_cases(files: CaseFiles) -> list[dict]:
    """The cases the shipped weights are fitted on (rules/devset.smk): the mined fixes and real
    issues, and the other languages' mined fixes (`devset fit --polyglot`)."""
    return list(development_cases(files, polyglot=True).values())


def case_matrices(files: CaseFiles, mirrors: Path, out: Path, depth: int, shipped_only: bool,
                  polyglot: bool = False) -> tuple[list, list]:
    """(results, feature matrices) of every measured case (`shipped_only`: of the cases the
    shipped weights were fitted on; `polyglot`: the other languages' mined fixes too)."""
    cases = development_cases(files, polyglot)
    keep = set(cases) & set(default_model()["fitted_on"]) if shipped_only else set(cases)
    results = load_results(out, keep)
    return results, [case_matrix(r, cases[r["case_id"]], out, mirrors, depth) for r in results]


def run_languages(args, s: DevsetSettings) -> int:
    """Held-out symbol and file hit per code language: the shipped weights, a fit on Python's
    cases only and a fit on every language's (the configured variant, every repository ranked
    by a fit without it)."""
    fit = fit_from(args, s)
    mirrors, out = _paths(args, s)
    cases = development_cases(s.files, polyglot=True)
    results, mats = case_matrices(s.files, mirrors, out, fit.history_depth, False, polyglot=True)
    names, n_files, loss = variant(fit.variant, fit.candidate_files)
    views = [View(r, m, n_files) for r, m in zip(results, mats)]
    langs = [case_language(cases[r["case_id"]]) for r in results]
    w = localize_options({})["w_file_symbol"]
    extra = synthetic_groups(s.files) if fit.synthetic else []
    cols = [ALL_NAMES.index(n) for n in names]
    extra = [(m[:, cols], y) for m, y in extra]
    rows = model_rows(results, views, langs, RELEASE, "release", w)
    rows += model_rows(results, views, langs, default_model(), "shipped", w)
    for pool in POOLS:
        rows += pooled_held_out(results, views, langs, names, loss, fit.l2, extra, pool, w)
    _print_replay_check(results, views, w)
    print(f"{fit.variant}; the shipped weights were fitted on the cases they rank (in-sample)")
    print_languages(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows))
    return 0


def run_cv(args, s: DevsetSettings) -> int:
    unknown = sorted(set(args.only or ()) - set(variants(0)))
    if unknown:
        raise SwevisError(f"--only: unknown variant {unknown[0]!r}: one of {'; '.join(variants(0))}")
    mirrors, out = _paths(args, s)
    results, mats = case_matrices(s.files, mirrors, out, args.history_depth or s.history_depth, args.shipped_cases,
                                  args.polyglot)
    extra = synthetic_groups(s.files) if args.synthetic else None
    fit = s.fit_settings
    l2 = args.l2 or fit.l2
    table, best, same = compare_variants(results, mats, l2, fit.candidate_files if args.files is None else args.files,
                                         extra, args.only)
    print_variants(table, best, len(results), same)
    return 0


def fit_from(args, s: DevsetSettings) -> FitSettings:
    """The config's fit with the arguments given laid over it."""
    over = {"variant": args.variant, "l2": args.l2, "candidate_files": args.files,
            "history_depth": args.history_depth, "synthetic": args.synthetic}
    fit = replace(s.fit_settings, **{k: v for k, v in over.items() if v is not None})
    variant(fit.variant, fit.candidate_files)  # an unknown variant is refused before any work
    return fit


def run_fit(args, s: DevsetSettings) -> int:
    fit = fit_from(args, s)
    mirrors, out = _paths(args, s)
    fit_weights(s, fit, mirrors, out, Path(args.weights or s.weights), args.shipped_cases, args.polyglot)
    return 0


def fit_weights(s: DevsetSettings, fit: FitSettings, mirrors: Path, out: Path, weights: Path,
                shipped_only: bool = False, polyglot: bool = False) -> Path:
    """CV of the variant and the release (the estimate the weights carry, printed), then the
    fit on every case (`polyglot`: the other languages' mined fixes too), written to `weights`
    with its provenance."""
    results, mats = case_matrices(s.files, mirrors, out, fit.history_depth, shipped_only, polyglot)
    extra = synthetic_groups(s.files) if fit.synthetic else None
    table, best, same = compare_variants(results, mats, fit.l2, fit.candidate_files, extra, [fit.variant])
    print_variants(table, best, len(results), same)
    sources = {"mined": files_digest({"mined.csv": s.files.mined}), "issues": files_digest({"issues.csv": s.files.issues}),
               **({"mined_polyglot": files_digest({"mined_polyglot.csv": s.files.polyglot})} if polyglot else {}),
               **({"small cases": files_digest(small_files(s.files))} if extra else {})}
    model = weights_model(results, fit_variant(results, mats, fit, extra), fit, table, len(extra or []), sources,
                          polyglot)
    path = write_weights(weights, model)
    print(f"wrote {path}: {fit.variant}, fitted on {len(results)} cases and {len(extra or [])} small ones")
    return path


def run_small(args, s: DevsetSettings) -> int:
    """hit@k on the bundled sample and each held-out set, with the shipped weights (a set they
    were fitted on, as the small cases a fit adds, is measured in-sample: the title says so)."""
    sets = {"bundled sample": load_sample_instances(SAMPLE_DIR)}
    for folder in s.files.heldout_sets():
        sets[folder.name] = heldout_rows(folder)
    model = default_model()
    fitted_on, small_in_fit = set(model.get("fitted_on", [])), bool(model.get("synthetic_cases"))
    tables = {}
    with tempfile.TemporaryDirectory(prefix="devset-small-") as tmp:
        for title, rows in sets.items():
            for ranker in args.ranker or ["heuristic", "learned"]:
                summary, per = measure_small(rows, Path(tmp), {"ranker": ranker})
                seen = len(rows) if small_in_fit else sum(r["instance_id"] in fitted_on for r in rows)
                note = f", in-sample: the weights were fitted on {seen} of these" if ranker == "learned" and seen else ""
                print_hits(f"{title}, {ranker} ranker{note}", summary, per)
                tables[f"{title}, {ranker}"] = {"summary": summary, "instances": per}
    if args.json:
        Path(args.json).write_text(json.dumps(tables, indent=1))
    return 0


def _split_out(args, s: DevsetSettings) -> Path:
    return Path(args.out) if args.out else Path(s.work) / "dev_split"


def run_split_prepare(args, s: DevsetSettings) -> int:
    mirrors, _ = _paths(args, s, out=False)
    prepare_split(read_split(s.files), read_rows([Path(p) for p in args.rows]), mirrors, _split_out(args, s))
    return 0


def run_split_measure(args, s: DevsetSettings) -> int:
    rows = load_prepared(_split_out(args, s), read_split(s.files))
    out = {}
    for ranker in args.ranker or ["learned", "heuristic"]:
        per = measure_split(rows, {"ranker": ranker}, model=RELEASE if args.release and ranker == "learned" else None)
        print_hits(f"dev split, {ranker} ranker", summarize(per), per)
        for repo in sorted({r["repo"] for r in rows}):
            sel = [r for r in per if r["repo"] == repo]
            print_hits(f"  {repo}, {ranker}", summarize(sel), sel)
        out[ranker] = per
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


def run_split_choose(args, s: DevsetSettings) -> int:
    key, _, vals = args.option.partition("=")
    try:
        values = [json.loads(v) for v in vals.split(",")]
    except json.JSONDecodeError:
        raise SwevisError(f"--option {args.option}: expected KEY=V1,V2,... with JSON values") from None
    rows = load_prepared(_split_out(args, s), read_split(s.files))
    ranker = args.ranker or "learned"
    res = choose_option(rows, key, values, args.level, ranker)
    for v, per in res["per_value"].items():
        print(f"{key}={v}: mean {args.level} hit over k, all repositories (in-sample) "
              f"{mean_hit(per, {r['repo'] for r in rows}, args.level):.3f}")
    print("folds (held-out repository: value chosen on the others): " + "; ".join(f"{h}: {v}" for h, v in res["folds"]))
    print_hits(f"leave-one-repository-out estimate of choosing {key} by {args.level} hit, {ranker}",
               summarize(res["estimate"]), res["estimate"])
    print(f"\nchosen on every repository: {key}={res['chosen']}")
    return 0


STEP_RUNNERS = {
    "fetch": run_fetch, "mine": run_lists, "issues": run_lists, "issue-candidates": run_issue_candidates,
    "issue-texts": run_issue_texts, "prepare": run_prepare, "measure": run_measure,
    "history": run_history, "report": run_report, "cv": run_cv, "fit": run_fit, "languages": run_languages,
    "small": run_small,
    "split-prepare": run_split_prepare, "split-measure": run_split_measure, "split-choose": run_split_choose,
}
