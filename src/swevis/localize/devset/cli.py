"""`swevis devset STEP`: the localization development set, step by step (rules/devset.smk runs
the same steps up to the shipped weights: `snakemake --cores 2 devset_weights`).

The mined set (1,076 real fixes and 442 real issues from the 12 SWE-bench Verified
repositories, none a Verified instance): fetch the clones, mine / issues (rebuild the case
lists; issue-candidates and issue-texts: the real issues of other languages), prepare each case, measure D_loc along history, store the history, report the
release's hit rates, cv (every re-ranker variant held out by repository), fit (the shipped
weights). The small cases: small. The dev split (26 real issues in other repositories):
split-prepare, split-measure, split-choose. Paths and the fit's settings default to the
config's `devset` section. Set OPENBLAS_NUM_THREADS=1 on a shared machine: the fits are many
small products that a second BLAS thread only slows.
"""

from __future__ import annotations

import argparse

from swevis.arguments import add_config_argument, positive_float, positive_int

STEPS = {
    "fetch": "clone or update the repositories the case lists read",
    "mine": "choose the mined fixes from the clones' histories (writes the lists' mined.csv)",
    "issues": "list the real SWE-bench issues outside Verified (writes the lists' issues.csv)",
    "issue-candidates": "list the polyglot repositories' fixes that name an issue they close (issues_polyglot.csv's candidates)",
    "issue-texts": "read the polyglot issues' texts (the lists' issues_polyglot.csv) from the GitHub API into a file",
    "prepare": "write each case's text, gold diff and meta under the work folder",
    "measure": "run D_loc along history and keep each case's rankings and features",
    "history": "store each case's past commits (the history features)",
    "report": "hit@k of the release's D_loc and of BM25, pooled and per repository",
    "cv": "every re-ranker variant against the release, held out by repository",
    "fit": "fit the configured variant on every case and write the weights with their provenance",
    "languages": "held-out symbol and file hit per code language: fits on Python's cases only and on every language's",
    "small": "hit@k of D_loc and BM25 on the bundled sample and the held-out sets",
    "split-prepare": "rebuild the dev split's cases, checkouts and indexes from SWE-bench rows",
    "split-measure": "hit@k of D_loc and BM25 on the prepared dev split",
    "split-choose": "choose a localize option's value on the dev split, held out by repository",
}
WITH_MIRRORS = {"fetch", "mine", "issues", "issue-candidates", "prepare", "measure", "history", "report", "cv", "fit",
                "languages", "split-prepare"}
WITH_OUT = {"prepare", "measure", "history", "report", "cv", "fit", "languages", "split-prepare", "split-measure",
            "split-choose"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    steps = parser.add_subparsers(dest="step", required=True, metavar="STEP")
    for name, help_text in STEPS.items():
        sp = steps.add_parser(name, help=help_text, description=help_text)
        add_config_argument(sp, " whose `devset` section gives the paths and the fit")
        if name in WITH_MIRRORS:
            sp.add_argument("--mirrors", help="folder of <owner>+<name>/repo clones (default: devset.mirrors)")
        if name in WITH_OUT:
            sp.add_argument("--out", help="the work folder (default: devset.work; the dev split: its dev_split/)")
        lists = sp.add_mutually_exclusive_group() if name in WITH_POLYGLOT else sp
        if name in WITH_POLYGLOT:
            also = name in ("cv", "fit")
            lists.add_argument("--polyglot", action="store_true",
                               help="the mined fixes of other code languages (the lists' mined_polyglot.csv) "
                               + ("too: their measured cases join the development data" if also else "instead"))
        if name in WITH_POLYGLOT_ISSUES:
            lists.add_argument("--polyglot-issues", action="store_true",
                               help="the real GitHub issues of other code languages (the lists' issues_polyglot.csv) instead")
        STEP_ARGUMENTS.get(name, lambda _sp: None)(sp)


WITH_POLYGLOT = ("fetch", "mine", "prepare", "measure", "history", "report", "cv", "fit")
WITH_POLYGLOT_ISSUES = ("fetch", "prepare", "measure", "history", "report")


def _fetch_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--remote", help="clone from REMOTE/<owner>/<name>.git (default: devset.remote)")
    sp.add_argument("--split", action="store_true", help="also the dev split's repositories")


def _repos_argument(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--repos", nargs="+", metavar="OWNER/NAME", help="only these repositories: runs on disjoint sets share nothing")


def _prepare_arguments(sp: argparse.ArgumentParser) -> None:
    _repos_argument(sp)
    sp.add_argument("--issue-texts", metavar="FILE",
                    help="read the GitHub issues' texts from this file (`issue-texts` writes one) instead of the API")


def _write_argument(sp: argparse.ArgumentParser, what: str) -> None:
    sp.add_argument("--write", required=True, metavar="FILE", help=f"write {what} here")


def _candidates_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--per-repo", type=positive_int, help="newest candidates kept per repository (default: devset.per_repo)")
    _repos_argument(sp)
    _write_argument(sp, "the candidates (the case lists' columns)")


def _measure_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--limit", type=positive_int, help="at most this many cases per repository")
    _repos_argument(sp)


def _history_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--depth", type=positive_int, help="past commits stored per case (default: devset.history_depth)")
    _repos_argument(sp)


def _fit_arguments(sp: argparse.ArgumentParser, *, cv: bool = False) -> None:
    sp.add_argument("--l2", type=positive_float, help="L2 strength (default: devset.fit.l2)")
    sp.add_argument("--files", type=int, choices=range(6), metavar="0..5",
                    help="add the definitions of this many best files as candidates (default: devset.fit.candidate_files)")
    sp.add_argument("--history-depth", type=positive_int, help="past commits the history features count "
                    f"(default: {'devset.history_depth' if cv else 'devset.fit.history_depth'})")
    sp.add_argument("--synthetic", action=argparse.BooleanOptionalAction, default=None,
                    help=f"add the 42 small cases to every fit (default: {'no' if cv else 'devset.fit.synthetic'})")
    sp.add_argument("--shipped-cases", action="store_true", help="only the cases the shipped weights were fitted on")
    if cv:
        sp.add_argument("--only", nargs="+", metavar="VARIANT", help="measure (and choose among) only these variants")
    else:
        sp.add_argument("--variant", help="the feature set and loss (default: devset.fit.variant)")
        sp.add_argument("--weights", help="write the weights here (default: devset.weights, the package's shipped file)")


def _languages_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--variant", help="the feature set and loss (default: devset.fit.variant)")
    sp.add_argument("--l2", type=positive_float, help="L2 strength (default: devset.fit.l2)")
    sp.add_argument("--files", type=int, choices=range(6), metavar="0..5",
                    help="add the definitions of this many best files as candidates (default: devset.fit.candidate_files)")
    sp.add_argument("--history-depth", type=positive_int, help="past commits the history features count (default: devset.fit.history_depth)")
    sp.add_argument("--synthetic", action=argparse.BooleanOptionalAction, default=None,
                    help="add the 42 small cases to every fit (default: devset.fit.synthetic)")
    sp.add_argument("--json", help="also write the per-case rows as JSON here")


def _split_arguments(sp: argparse.ArgumentParser, step: str) -> None:
    if step == "split-prepare":
        sp.add_argument("--rows", action="append", required=True, help="SWE-bench rows (JSON list or JSON lines; repeatable)")
        return
    sp.add_argument("--ranker", choices=("heuristic", "learned"), action="append" if step == "split-measure" else None,
                    help="the symbol ranking (split-measure: repeatable, default both; split-choose: default learned)")
    if step == "split-measure":
        sp.add_argument("--json", help="also write the per-instance rows as JSON here")
        sp.add_argument("--release", action="store_true", help="the learned ranker with the release's weights, not the shipped ones")
    else:
        sp.add_argument("--option", required=True, help="KEY=V1,V2,... (values as JSON), e.g. w_file_symbol=0,0.5,1")
        sp.add_argument("--level", choices=("file", "symbol", "span"), required=True, help="the hit level the choice maximizes")


def _small_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--ranker", choices=("heuristic", "learned"), action="append", help="repeatable; default both")
    sp.add_argument("--json", help="also write the tables as JSON here")


STEP_ARGUMENTS = {
    "fetch": _fetch_arguments,
    "report": lambda sp: sp.add_argument("--shipped", action="store_true", help="also the shipped weights' file and "
                                         "symbol hit@k, replayed from the stored features and history (and the clones where a "
                                         "stored result lacks a feature)"),
    "mine": lambda sp: sp.add_argument("--per-repo", type=positive_int, help="newest fixes kept per repository (default: devset.per_repo)"),
    "measure": _measure_arguments,
    "issue-candidates": _candidates_arguments,
    "issue-texts": lambda sp: _write_argument(sp, "the texts (JSON lines: repo, number, title, body, url)"),
    "prepare": _prepare_arguments,
    "history": _history_arguments,
    "cv": lambda sp: _fit_arguments(sp, cv=True),
    "fit": _fit_arguments,
    "languages": _languages_arguments,
    "small": _small_arguments,
    "split-prepare": lambda sp: _split_arguments(sp, "split-prepare"),
    "split-measure": lambda sp: _split_arguments(sp, "split-measure"),
    "split-choose": lambda sp: _split_arguments(sp, "split-choose"),
}


def run(args: argparse.Namespace) -> int:
    import logging

    from swevis.config import load_user_config
    from swevis.localize.devset.settings import DevsetSettings
    from swevis.localize.devset.steps import STEP_RUNNERS

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    config, _name = load_user_config(args.config)
    return STEP_RUNNERS[args.step](args, DevsetSettings.of(config))
