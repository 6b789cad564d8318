"""The results layout of docs/DESIGN.md, in one place: rules, scripts and the package build paths here.

Every function returns a path relative to the working directory, rooted at `results_dir`
(config key, default "results"), so Snakemake targets and package code always agree.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from swevis import conditions

# Wildcard patterns, shared with the Snakefile's wildcard_constraints.
INSTANCE_ID = r"[A-Za-z0-9_.\-]+__[A-Za-z0-9_.\-]+-\d+"
REPO_SLUG = r"[A-Za-z0-9_.\-]+__[A-Za-z0-9_.\-]+"
MODEL = r"[A-Za-z0-9][A-Za-z0-9_.\-]*"
# an agent of swevis.agents.registry (lower-case, no '-') or a variant <agent>-<suffix>
AGENT = r"[a-z][a-z0-9_]*(?:-[a-z0-9_]+)?"
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


def run_subdir(instance: str, repeat: int | str = 0) -> str:
    """A run's folder below its condition folder: the instance, or <instance>/repeat-k."""
    return instance if repeat in (0, "0") else f"{instance}/repeat-{repeat}"


HARNESS_DIRNAME = "harness"
# a condition's runs of the probe sets (agents.matrix probe_sets) and their grading:
# <condition>/probes/<instance>/ and <condition>/probes/harness/, apart from the study's runs
PROBES_DIRNAME = "probes"


def run_path(condition_dir: str | Path, instance: str, repeat: int | str, name: str) -> Path:
    """A file of one run below a condition folder: traj.json, patch.diff."""
    return Path(condition_dir) / run_subdir(instance, repeat) / name


def harness_summary_path(condition_dir: str | Path) -> Path:
    """What a grading job writes last, when it has graded every run of the condition."""
    return Path(condition_dir) / HARNESS_DIRNAME / "harness_summary.json"


def eval_path(condition_dir: str | Path, instance: str, repeat: int | str = 0, name: str = "eval.json") -> Path:
    """A run's eval record (or test log) in the grading job's output folder
    <condition>/harness/evals/<instance>[/repeat-k]/: a declared output, not the agent's."""
    return Path(condition_dir) / HARNESS_DIRNAME / "evals" / run_subdir(instance, repeat) / name


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


class ConditionKey(NamedTuple):
    """One condition of one matrix cell: what a condition folder holds and a harness run grades.

    A tuple, so `layout.condition_dir(*key)`-style call sites and Snakemake wildcard templates
    (ConditionKey("{model}", ...)) both work; parse_condition_dir reads one back from a path."""

    model: str
    agent: str
    scope: str
    condition: str

    @classmethod
    def of(cls, wildcards) -> ConditionKey:
        """The key of a job's wildcards (a Snakemake Wildcards object, or any namespace)."""
        return cls(wildcards.model, wildcards.agent, wildcards.scope, wildcards.condition)

    @property
    def visual(self) -> bool:
        """True under a rendered condition (rN), False under text."""
        return conditions.Condition.parse(self.condition).visual

    @property
    def run_id(self) -> str:
        """The swebench run_id of this condition's harness run."""
        return f"swevis-{self.model}-{self.agent}-{self.scope}-{self.condition}"

    def run(self, instance: str, repeat: int | str = 0) -> RunKey:
        return RunKey(*self, instance, int(repeat) if str(repeat).isdigit() else repeat)


class RunKey(NamedTuple):
    """One run: a condition, an instance and a repeat (0 is the first run)."""

    model: str
    agent: str
    scope: str
    condition: str
    instance: str
    repeat: int | str = 0

    @property
    def cell(self) -> ConditionKey:
        return ConditionKey(*self[:4])

    @property
    def subdir(self) -> str:
        """The run's folder below its condition folder (run_subdir)."""
        return run_subdir(self.instance, self.repeat)

    @property
    def flat_name(self) -> str:
        """<instance> or <instance>.repeat-k: the run as one file or folder name."""
        return self.instance if self.repeat in (0, "0") else f"{self.instance}.repeat-{self.repeat}"


# Snakemake wildcard templates of the keys, for rules' inputs and outputs.
WILDCARD_CONDITION = ConditionKey("{model}", "{agent}", "{scope}", "{condition}")
WILDCARD_RUN = WILDCARD_CONDITION.run("{instance}")
WILDCARD_REPEAT = WILDCARD_CONDITION.run("{instance}", "{rep}")

_REPEAT_DIR = re.compile(r"repeat-([1-9][0-9]*)")


class ResultsLayout:
    """Paths of every result file, relative to the working directory; the one place that
    builds a results path from a key and reads a key back from a path."""

    def __init__(self, results_dir: str = "results"):
        self.root = PurePosixPath(results_dir)
        self._condition_dirs: dict[ConditionKey, str] = {}

    def _p(self, *parts: str) -> str:
        return str(self.root.joinpath(*parts))

    # tasks
    def instances(self) -> str:
        return self._p("instances.jsonl")

    def localized_instances(self) -> str:
        """The rows of tasks.localized_sets: indexed and localized, never run."""
        return self._p("localized_instances.jsonl")

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

    def runs_root(self) -> str:
        return self._p("runs")

    def condition_dir(self, key: ConditionKey) -> str:
        """<results>/runs/<model>/<agent>-<scope>/<condition>: made once a key, as every path
        of a run below it asks for it (a study's plan asks thousands of times)."""
        found = self._condition_dirs.get(key)
        if found is None:
            found = self._condition_dirs[key] = self._p("runs", key.model, f"{key.agent}-{key.scope}", key.condition)
        return found

    def run_dir(self, run: RunKey) -> str:
        """The run's folder: <condition>/<instance>, or <condition>/<instance>/repeat-k."""
        return str(PurePosixPath(self.condition_dir(run.cell)) / run.subdir)

    def run_file(self, run: RunKey, name: str) -> str:
        """traj.json or patch.diff of one run (the agent's outputs)."""
        return str(PurePosixPath(self.run_dir(run)) / name)

    def cell_runs(self, key: ConditionKey) -> str:
        """runs.json of a condition: the run folders its one agent job made or found current
        (rule run_condition, swevis.agents.run.batch)."""
        return str(PurePosixPath(self.condition_dir(key)) / "runs.json")

    def harness_dir(self, key: ConditionKey) -> str:
        """The grading job's declared output folder: harness_summary.json, the harness's logs
        and one eval record per run (eval_path)."""
        return str(PurePosixPath(self.condition_dir(key)) / HARNESS_DIRNAME)

    def probe_dir(self, key: ConditionKey) -> str:
        """The folder of a condition's probe runs: laid out as a condition folder (its runs, its
        harness/), below the condition's, so that no reader of the study's runs sees them."""
        return str(PurePosixPath(self.condition_dir(key)) / PROBES_DIRNAME)

    def probe_run_file(self, run: RunKey, name: str) -> str:
        """traj.json or patch.diff of one probe run: <condition>/probes/<instance>/."""
        return str(PurePosixPath(self.probe_dir(run.cell)) / run.subdir / name)

    def probe_harness_dir(self, key: ConditionKey) -> str:
        """The probe runs' grading job's output folder (as harness_dir, below probe_dir)."""
        return str(PurePosixPath(self.probe_dir(key)) / HARNESS_DIRNAME)

    def eval_record(self, run: RunKey, name: str = "eval.json") -> str:
        return eval_path(self.condition_dir(run.cell), run.instance, run.repeat, name).as_posix()

    # a run's working files outside results/ (the rules' outputs): they survive a killed job
    def run_journal(self, journal_dir: str, run: RunKey) -> str:
        """The step journal a killed run resumes from (swevis.agents.run.resume)."""
        return str(PurePosixPath(journal_dir, run.model, f"{run.agent}-{run.scope}", run.condition, f"{run.flat_name}.jsonl"))

    def spend_ledger(self, ledger_dir: str, key: ConditionKey) -> str:
        """The condition's spend ledger, shared by all its jobs (swevis.models.spend)."""
        return str(PurePosixPath(ledger_dir, key.model, f"{key.agent}-{key.scope}", f"{key.condition}.json"))

    def run_workspace(self, workspace_dir: str, run: RunKey) -> str:
        """The fixed checkout folder of one run: <workspace_dir>/<8 digits> (see workspace_id)."""
        return str(PurePosixPath(workspace_dir, workspace_id(*run.cell, run.flat_name)))

    def harness_summary(self, key: ConditionKey) -> str:
        """Written by the grading job when it has graded a whole condition."""
        return harness_summary_path(self.condition_dir(key)).as_posix()

    def condition_summary(self, key: ConditionKey) -> str:
        return str(PurePosixPath(self.condition_dir(key)) / "summary.json")

    # counterfactual replay
    def counterfactual(self, cfset: str, name: str) -> str:
        """per_step.parquet, table.csv, decomposition.csv or figure.png of one trajectory set."""
        return self._p("counterfactual", cfset, name)

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

    # ---- paths back to keys: the only place a results path is read

    @staticmethod
    def parse_condition_dir(path: str | Path) -> ConditionKey:
        """The key of a condition folder (…/runs/<model>/<agent>-<scope>/<condition>), from its
        last three parts; a path of another shape is a ValueError naming it."""
        parts = PurePosixPath(Path(path).as_posix()).parts
        if len(parts) < 3:
            raise ValueError(f"{path} is not a condition folder (runs/<model>/<agent>-<scope>/<condition>)")
        model, agent_scope, condition = parts[-3:]
        agent, _, scope = agent_scope.rpartition("-")
        key = ConditionKey(model, agent, scope, condition)
        for value, pattern in zip(key, (MODEL, AGENT, SCOPE, CONDITION)):
            if not re.fullmatch(pattern, value):
                raise ValueError(f"{path} is not a condition folder (runs/<model>/<agent>-<scope>/<condition>)")
        return key

    @staticmethod
    def parse_run_subdir(condition_dir: str | Path, path: str | Path) -> tuple[str, int]:
        """(instance, repeat) of a run's file below a condition folder:
        <instance>/<file> or <instance>/repeat-k/<file>."""
        rel = Path(path).relative_to(condition_dir).parts[:-1]
        if len(rel) == 2 and (m := _REPEAT_DIR.fullmatch(rel[1])):
            return rel[0], int(m.group(1))
        if len(rel) == 1:
            return rel[0], 0
        raise ValueError(f"{path} is not a run's file below {condition_dir}")

    def condition_dirs(self, model: str | None = None) -> list[ConditionKey]:
        """The keys of the condition folders under runs/ (of one model, or all)."""
        root = Path(self.runs_root())
        return sorted(
            key for folder in root.glob(f"{model or '*'}/*/*") if folder.is_dir()
            for key in [self.condition_key_or_none(folder)] if key is not None
        )

    @classmethod
    def condition_key_or_none(cls, folder: Path) -> ConditionKey | None:
        try:
            return cls.parse_condition_dir(folder)
        except ValueError:
            return None


def portable(path: str | Path) -> str:
    """`path` as results/ and the caches record it: relative to the working directory (the
    workflow's, in every job) when it lies below it, so a workflow folder moves between machines
    whole; a folder elsewhere (a cache of its own) stays absolute. Readers resolve it against
    the working directory."""
    here, folder = Path.cwd().resolve(), Path(path).resolve()
    return folder.relative_to(here).as_posix() if folder.is_relative_to(here) else str(folder)
