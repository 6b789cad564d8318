# Shared by every included .smk: the results layout and the checkpoint helpers.
# Trigger policy (README "Reruns"): the profiles set rerun-triggers to mtime, params and
# input. Rules that pay for model calls take narrow params (only the keys they use), so
# editing unrelated config or package code never silently re-runs paid trajectories. The
# per-instance and per-repository rules read the sample as ancient() and take what they
# depend on in it as params (the row's digest, repo@commit): the sampling checkpoint
# rewrites it whenever the sample changes, so its mtime would rerun every instance's jobs.
# (Only the checkpoint's output is read as ancient(): Snakemake skips the own reasons of the
# jobs below a rerunning job's ancient() edge, so such an edge after any other job would
# leave, say, an edited row's runs for the next invocation.)

import json
import os

from swevis.agents.registry import action_figures, agent_kind, preloc_agent
from swevis.sandbox import resolved_environment
from swevis.config import section
from swevis import conditions
from swevis.models import is_live
from swevis.paths import (
    WILDCARD_CONDITION,
    WILDCARD_REPEAT,
    WILDCARD_RUN,
    ConditionKey,
    ResultsLayout,
)
from swevis.workflow import (
    SampleIndex,
    agent_param_sets,
    cell_probe_sets,
    matrix_probe_sets,
    missing_inputs_token,
    probe_cells,
    signature_once,
    table_models,
)

LAYOUT = ResultsLayout(config["results_dir"])


def bench(rule, name=None):
    """The `benchmark:` file of a job: results/logs/benchmarks/<rule>[/<name>].tsv, so that
    benchmarks/bench_rules.py can name each job's rule from its path alone."""
    if name is None:
        return LAYOUT.log("benchmarks", f"{rule}.tsv")
    return LAYOUT.log("benchmarks", rule, f"{name}.tsv")


_SAMPLE_CACHE = {}
_SAMPLE_PATH = []
_LOCALIZED_CACHE = {}


def sample_index():
    """The sampled instances (swevis.workflow.SampleIndex), read once per version of the file
    (input functions call this for every job; re-reading it made DAG building quadratic).
    Resolving it waits for the sampling checkpoint; once the checkpoint is complete it stays
    so in this process, and asking Snakemake again per job cost a tenth of the build."""
    if not _SAMPLE_PATH:
        _SAMPLE_PATH.append(checkpoints.sample_instances.get().output.instances)
    path = _SAMPLE_PATH[0]
    key = (path, os.stat(path).st_mtime_ns)
    if key not in _SAMPLE_CACHE:
        _SAMPLE_CACHE.clear()
        _SAMPLE_CACHE[key] = SampleIndex(_jsonl(path), LAYOUT, LAYOUT.instances())
    return _SAMPLE_CACHE[key]


def localized_index():
    """The sample with the localized sets' rows (tasks.localized_sets) beside it. Only the
    localization table and the jobs of a localized instance ask for it (through in_sample):
    a study job never waits for the localized sets' checkpoint, so adding a set plans none.
    """
    path = sample_index().source
    localized = checkpoints.localized_instances.get().output.instances
    key = (os.stat(path).st_mtime_ns, localized, os.stat(localized).st_mtime_ns)
    if key not in _LOCALIZED_CACHE:
        _LOCALIZED_CACHE.clear()
        _LOCALIZED_CACHE[key] = SampleIndex(
            _jsonl(path), LAYOUT, LAYOUT.instances(), localized=_jsonl(localized)
        )
    return _LOCALIZED_CACHE[key]


def _jsonl(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def in_sample(table, key):
    """sample_index()'s `table` (mirror, index, base, index_checkout) at `key`, else the
    localized sets' (localized_index()): only a localized instance's job reads their file.
    """
    found = getattr(sample_index(), table)
    if key in found:
        return found[key]
    return getattr(localized_index(), table)[key]


def sampled_instance_ids():
    """The study's sample: every table counts these; the probe sets' rows are not among them."""
    return list(sample_index().study)


def instance_row(instance_id):
    return sample_index().row(instance_id)


def instance_mirror(instance_id):
    if instance_id not in sample_index().rows:
        localized_index().row(instance_id)  # an unknown id is named
    return in_sample("mirror", instance_id)


def instance_index(instance_id):
    if instance_id not in sample_index().rows:
        localized_index().row(instance_id)
    return in_sample("index", instance_id)


# Input and param functions of the per-run rules (thousands of jobs): named, so that their
# signature is inspected once (swevis.workflow.signature_once).


@signature_once
def run_mirror(wc):
    return instance_mirror(wc.instance)


@signature_once
def run_index(wc):
    return instance_index(wc.instance)


@signature_once
def instance_digest(wc):
    """The digest of the instance's row: a per-instance rule reads instances.jsonl as ancient()
    (growing the sample rewrites it) and reruns when its own row changes (params trigger).
    """
    return sample_index().digest[wc.instance]


@signature_once
def instance_base(wc):
    """repo@base_commit of the instance: all its checkout depends on in the row."""
    return in_sample("base", wc.instance)


@signature_once
def run_preloc(wc):
    """The pre-localization of the instance, for the runs of an agent that starts from it
    (PLB)."""
    return (
        LAYOUT.preloc(wc.model, wc.instance)
        if agent_kind(wc.agent).needs_preloc
        else []
    )


def keys_of(name, *keys):
    """Some keys of one config section, for params narrower than the section."""
    return {k: v for k, v in section(config, name).items() if k in keys}


# Params computed once per DAG build, not once per job: a study has thousands of run jobs,
# and each section() is a deep copy.
MODEL_PROFILES = section(config, "models")
LIVE_MODELS = {name: is_live(profile) for name, profile in MODEL_PROFILES.items()}
RENDER_PARAMS = section(config, "single_read")["render"]
AGENT_PARAMS, VARIANT_PARAMS = agent_param_sets(config)
# The harness keys naming the image a docker run's commands use (the one the Docker harness
# grades in), for the models whose runs are in Docker only: they rerun no local run.
AGENT_IMAGES = {
    name: (
        keys_of("harness", "namespace", "instance_image_tag", "env_image_tag")
        if resolved_environment(config["agents"]["environment"], live) == "docker"
        else {}
    )
    for name, live in LIVE_MODELS.items()
}


@signature_once
def model_profile(wc):
    return MODEL_PROFILES[wc.model]


@signature_once
def render_params(wc):
    """The renderer settings, for runs under a visual condition only: a text run renders
    nothing, so editing the renderer reruns no text run."""
    if not ConditionKey.of(wc).visual:
        return {}
    return RENDER_PARAMS


def counterfactual_agents_params():
    """What the replay reads of config agents: max_window_chars, and the agents.pages keys of
    the page families among counterfactual.conditions (only when there are any)."""
    pages = conditions.pages_read(
        config["counterfactual"]["conditions"], config["agents"]["pages"]
    )
    return {
        "max_window_chars": config["agents"]["max_window_chars"],
        **({"pages": pages} if pages else {}),
    }


def agent_conditions():
    """(model, agent, scope, condition) of every cell of the configured matrix."""
    return [
        (model, cell["agent"], cell["scope"], condition)
        for model in config["models"]
        for cell in config["agents"]["matrix"]
        for condition in cell["conditions"]
    ]


@signature_once
def agent_image_params(wc):
    return AGENT_IMAGES[wc.model]


@signature_once
def agents_params(wc):
    """The agents section without the matrix, the repeat count and the ablation set-up; an
    agent's own keys for its runs only, and a variant's what it reads in their place (a LET
    variant's entry, a Prometheus ablation's overridden agents.prometheus) with the memory
    options (swevis.workflow.agent_param_sets)."""
    params = VARIANT_PARAMS.get(wc.agent, AGENT_PARAMS)
    # the agents.pages keys the run's page family reads (obs-rN, hist-rN), for those runs only:
    # editing one reruns only the runs of its family, and a text or rN run's params stay as they were
    pages = conditions.pages_read([wc.condition], config["agents"]["pages"])
    return {**params, "pages": pages} if pages else params


_DEMO_FILES = {}


@signature_once
def preloc_demos(wc):
    """The demonstration the pre-localization plays back: its agent's (PLB's)."""
    return playback_demos(wc, preloc_agent())


def ranker_weights(wc=None):
    """The symbol re-ranker's weights, when D_loc uses them: refitting them reruns the
    localization table. Paid runs do not take them as input (trigger policy); each run
    records which weights it saw (provenance.localizer_ranker).
    """
    if config["localize"]["ranker"] != "learned":
        return []
    from swevis.localize.rerank import weights_path

    return [local(str(weights_path()))]


@signature_once
def playback_demos(wc, agent=None):
    """Under the playback backend, the demonstration a run plays back and the files it is based
    on: editing a demonstration reruns its runs (and those of the variants based on it).
    """
    if LIVE_MODELS[wc.model]:
        return []
    from swevis.agents.run.demos import demo_files

    demos_dir = (config.get("agents") or {}).get("demos_dir")
    key = (agent or wc.agent, wc.instance, demos_dir)
    if key not in _DEMO_FILES:  # parsed once per DAG build, not once per job and call
        _DEMO_FILES[key] = [str(p) for p in demo_files(*key)]
    # local(): package files, never in a remote default storage (profiles/kubernetes)
    return [local(p) for p in _DEMO_FILES[key]]


def condition_summaries():
    """The summary.json of every condition of the configured matrix."""
    return [
        LAYOUT.condition_summary(ConditionKey(*cell)) for cell in agent_conditions()
    ]


def analysis_params():
    """The analysis settings the tables, figures and ablation read: without the coverage
    thresholds (condition summaries) and the localization cut-offs (localization.csv).
    """
    return {
        k: v
        for k, v in section(config, "analysis").items()
        if k not in ("coverage", "localization_top_k")
    }


def rebuild_token(wc):
    """The tables' and figures' `rebuild` param (rules/analysis.smk). A param function: it
    runs while the DAG is built, when Snakemake knows whether this is a dry run (which must
    not write the ledger)."""
    return missing_inputs_token(
        LAYOUT.log("analysis", "rebuild-ledger.json"),
        [LAYOUT.table(f"{n}.csv") for n in TABLE_NAMES]
        + [LAYOUT.figure(n) for n in FIGURE_NAMES],
        condition_summaries(),
        record=not workflow.dryrun,
    )


class CellPlan:
    """The runs of one cell (instances x repeats) and what its jobs ask of them, derived once
    per cell and version of the sample: Snakemake makes a cell's jobs more than once while it
    builds the DAG, and the cell's input and param functions each walked the whole sample
    again for every one of them."""

    def __init__(self, key, sample, repeats):
        self.key = key
        self.sample = sample
        self.runs = [key.run(i, r) for i in sample.study for r in range(repeats)]
        self._run_files = {}
        self._files = None
        self._params = None
        self._inputs = None

    def run_files(self, name):
        """One file `name` of every run, in run order."""
        if name not in self._run_files:
            self._run_files[name] = [LAYOUT.run_file(run, name) for run in self.runs]
        return self._run_files[name]

    def files(self):
        """{instance: _run_files} of the cell's runs, for its one agent job's inputs and
        params (only agents.jobs cell asks)."""
        if self._files is None:
            self._files = {
                i: _run_files(self.key, i, self.sample) for i in self.sample.study
            }
        return self._files

    def params(self):
        """run_condition's `runs` param: each run with its folder, input files and row
        digest, which swevis.agents.run.batch compares run by run."""
        if self._params is None:
            files = self.files()
            self._params = [
                {
                    "instance": run.instance,
                    "repeat": run.repeat,
                    "out_dir": LAYOUT.run_dir(run),
                    "digest": self.sample.digest[run.instance],
                    "files": files[run.instance],
                }
                for run in self.runs
            ]
        return self._params

    def inputs(self):
        """Every input file of the cell's runs, once each."""
        if self._inputs is None:
            files = []
            for i, f in self.files().items():
                files += [
                    f["checkout"],
                    f["index"],
                    *([f["preloc"]] if f["preloc"] else []),
                ]
                files += playback_demos(self.key.run(i))
            self._inputs = list(dict.fromkeys(files))
        return self._inputs


_CELL_PLANS = {}


def cell_plan(key):
    """The CellPlan of the cell `key` for the sample as it is now (a new sample, a new plan)."""
    sample = sample_index()
    plan = _CELL_PLANS.get(key)
    if plan is None or plan.sample is not sample:
        plan = CellPlan(key, sample, int(config["agents"]["repeats"]))
        _CELL_PLANS[key] = plan
    return plan


def condition_runs(wc, name):
    """One file of every run (instances x repeats) of the condition in the wildcards."""
    return list(cell_plan(ConditionKey.of(wc)).run_files(name))


def condition_run_outputs(wc):
    """What a condition's grading and summary wait for: its runs.json under agents.jobs cell
    (one job for the cell's runs), else every run's traj.json and patch.diff."""
    if config["agents"]["jobs"] == "cell":
        return [LAYOUT.cell_runs(ConditionKey.of(wc))]
    return condition_runs(wc, "traj.json") + condition_runs(wc, "patch.diff")


def _run_files(key, instance, sample):
    """The input files of one run of the cell `key`: its checkout manifest, index,
    pre-localization (PLB's) and demonstrations (playback)."""
    wc = key.run(instance)
    return {
        "checkout": sample.checkout[instance],
        "index": sample.index[instance],
        "preloc": run_preloc(wc) or None,
        "demos": [str(p) for p in playback_demos(wc)],
    }


def cell_runs(wc):
    """The runs of a cell's one agent job (run_condition): CellPlan.params."""
    return cell_plan(ConditionKey.of(wc)).params()


def cell_run_inputs(wc):
    """Every input file of the cell's runs, once each (CellPlan.inputs)."""
    return list(cell_plan(ConditionKey.of(wc)).inputs())


def cell_missing_runs(wc):
    """run_condition's `missing` param: grows when a run's files go missing behind the cell's
    runs.json (a deleted run folder), so the job reruns and makes that run again."""
    key = ConditionKey.of(wc)
    return missing_inputs_token(
        LAYOUT.log(
            "runs",
            key.model,
            f"{key.agent}-{key.scope}",
            f"{key.condition}.ledger.json",
        ),
        [LAYOUT.cell_runs(key)],
        # a generator: the run files are listed only when runs.json exists
        (f for name in ("traj.json", "patch.diff") for f in condition_runs(wc, name)),
        record=not workflow.dryrun,
    )


# Probe sets (agents.matrix probe_sets): a condition of an entry naming one runs its instances
# too, once each (no repeats), in <condition>/probes/, graded there by its own job and reported
# in results/table_probes.csv only.
PROBE_CELLS = [ConditionKey(*cell) for cell in probe_cells(config)]


def condition_probe_sets(wc):
    return cell_probe_sets(config, wc.agent, wc.scope, wc.condition)


def probe_runs(wc, name):
    """One file of every probe run of the condition in the wildcards."""
    key = ConditionKey.of(wc)
    return [
        LAYOUT.probe_run_file(key.run(i), name)
        for i in sample_index().probe_ids(condition_probe_sets(wc))
    ]
