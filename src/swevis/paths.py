"""The results layout of docs/DESIGN.md, in one place: rules, scripts and the package build paths here.

Every function returns a path relative to the working directory, rooted at `results_dir`
(config key, default "results"), so Snakemake targets and package code always agree.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath

from swevis import conditions

# Wildcard patterns, shared with the Snakefile's wildcard_constraints.
INSTANCE_ID = r"[A-Za-z0-9_.\-]+__[A-Za-z0-9_.\-]+-\d+"
REPO_SLUG = r"[A-Za-z0-9_.\-]+__[A-Za-z0-9_.\-]+"
MODEL = r"[A-Za-z0-9][A-Za-z0-9_.\-]*"
AGENT = r"mini|plb|let|let-[a-z0-9_]+"
SCOPE = r"normal|wide"
CONDITION = conditions.PATTERN
SHA = r"[0-9a-f]{40}"

WILDCARD_CONSTRAINTS = {
    "instance": INSTANCE_ID,
    "repo_slug": REPO_SLUG,
    "model": MODEL,
    "agent": AGENT,
    "scope": SCOPE,
    "condition": CONDITION,
    "sha": SHA,
    "rep": r"[1-9][0-9]*",
}


def run_subdir(instance: str, repeat: int = 0) -> str:
    """A run's folder below its condition folder: the instance, or <instance>/repeat-k."""
    return instance if repeat == 0 else f"{instance}/repeat-{repeat}"


WORKSPACE_ID_DIGITS = 8


def workspace_id(*run_key: object) -> str:
    """Eight digits derived from run_key, naming a run's checkout folder.

    Fixed per run, so a rerun prints byte-identical paths (pytest and tracebacks print
    absolute paths) and its model requests hit the response cache. Not *named* after the
    run: a path containing the agent or condition ("let-mem-normal/r3") would cost every
    prompt a different number of tokens, and paired comparisons (LET vs LET with memory,
    text vs r3) would measure the folder name. Eight digits tokenize to the same count
    whatever their value (digit-wise in Qwen, in fixed groups in BPE tokenizers). Two runs
    that hash to the same id share the folder one after the other (LocalWorkspace locks it).
    """
    key = "\x1f".join(str(k) for k in run_key).encode()
    digits = int(hashlib.sha256(key).hexdigest(), 16) % 10**WORKSPACE_ID_DIGITS
    return f"{digits:0{WORKSPACE_ID_DIGITS}d}"


def repo_slug(repo: str) -> str:
    """owner/name -> owner__name, the form used in file names (as SWE-bench ids do)."""
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+", repo):
        raise ValueError(f"repository name {repo!r} is not of the form owner/name")
    return repo.replace("/", "__")


class ResultsLayout:
    """Paths of every result file, relative to the working directory."""

    def __init__(self, results_dir: str = "results"):
        self.root = PurePosixPath(results_dir)

    def _p(self, *parts: str) -> str:
        return str(self.root.joinpath(*parts))

    # tasks
    def instances(self) -> str:
        return self._p("instances.jsonl")

    def mirror_manifest(self, repo_slug: str) -> str:
        return self._p("repos", f"{repo_slug}.json")

    def checkout_manifest(self, instance: str) -> str:
        return self._p("checkouts", f"{instance}.json")

    def checkouts_done(self) -> str:
        return self._p("checkouts", "all.json")

    # single-read study
    def single_read(self, name: str) -> str:
        return self._p("single_read", name)

    # index
    def index_db(self, repo_slug: str, sha: str) -> str:
        return self._p("index", f"{repo_slug}@{sha}.sqlite")

    # agents
    def preloc(self, model: str, instance: str) -> str:
        return self._p("preloc", model, f"{instance}.json")

    def condition_dir(self, model: str, agent: str, scope: str, condition: str) -> str:
        return self._p("runs", model, f"{agent}-{scope}", condition)

    def run_dir(self, model: str, agent: str, scope: str, condition: str, instance: str) -> str:
        return str(PurePosixPath(self.condition_dir(model, agent, scope, condition)) / instance)

    def run_file(
        self, model: str, agent: str, scope: str, condition: str, instance: str, name: str, repeat: int | str = 0
    ) -> str:
        """traj.json, patch.diff or eval.json of one run; repeat k > 0 lives in <instance>/repeat-k/."""
        run = PurePosixPath(self.run_dir(model, agent, scope, condition, instance))
        if repeat not in (0, "0"):
            run = run / f"repeat-{repeat}"
        return str(run / name)

    # a run's working files outside results/ (the rules' outputs): they survive a killed job
    def run_journal(
        self, journal_dir: str, model: str, agent: str, scope: str, condition: str, instance: str, repeat: int = 0
    ) -> str:
        """The step journal a killed run resumes from (swevis.agents.resume)."""
        name = instance if repeat == 0 else f"{instance}.repeat-{repeat}"
        return str(PurePosixPath(journal_dir, model, f"{agent}-{scope}", condition, f"{name}.jsonl"))

    def spend_ledger(self, ledger_dir: str, model: str, agent: str, scope: str, condition: str) -> str:
        """The condition's spend ledger, shared by all its jobs (swevis.models.spend)."""
        return str(PurePosixPath(ledger_dir, model, f"{agent}-{scope}", f"{condition}.json"))

    def run_workspace(
        self, workspace_dir: str, model: str, agent: str, scope: str, condition: str, instance: str, repeat: int = 0
    ) -> str:
        """The fixed checkout folder of one run: <workspace_dir>/<8 digits> (see workspace_id)."""
        name = instance if repeat == 0 else f"{instance}.repeat-{repeat}"
        return str(PurePosixPath(workspace_dir, workspace_id(model, agent, scope, condition, name)))

    def harness_summary(self, model: str, agent: str, scope: str, condition: str) -> str:
        """Written by the Docker harness when it has graded a whole condition."""
        return str(PurePosixPath(self.condition_dir(model, agent, scope, condition)) / "harness" / "harness_summary.json")

    def condition_summary(self, model: str, agent: str, scope: str, condition: str) -> str:
        return str(PurePosixPath(self.condition_dir(model, agent, scope, condition)) / "summary.json")

    # tables and figures
    def table(self, name: str) -> str:
        return self._p(name)

    def figure(self, name: str) -> str:
        return self._p("figures", name)

    def report_view(self, name: str) -> str:
        """The HTML view of a table that Snakemake's report shows (rules/report.smk)."""
        return self._p("report", f"{name}.html")

    def log(self, *parts: str) -> str:
        return self._p("logs", *parts)


def portable(path: str | Path) -> str:
    """`path` as results/ and the caches record it: relative to the working directory (the
    workflow's, in every job) when it lies below it, so a workflow folder moves between machines
    whole; a folder elsewhere (a cache of its own) stays absolute. Readers resolve it against
    the working directory."""
    here, folder = Path.cwd().resolve(), Path(path).resolve()
    return folder.relative_to(here).as_posix() if folder.is_relative_to(here) else str(folder)
