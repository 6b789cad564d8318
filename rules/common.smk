# Shared by every included .smk: the results layout and the checkpoint helpers.
# Trigger policy (README "Reruns"): the profiles set rerun-triggers to mtime, params and
# input. Rules that pay for model calls take narrow params (only the keys they use), so
# editing unrelated config or package code never silently re-runs paid trajectories.

import json
import os

from swevis.config import section
from swevis.models import is_live
from swevis.paths import ResultsLayout, repo_slug
from swevis.workflow import missing_inputs_token, table_models

LAYOUT = ResultsLayout(config["results_dir"])


_SAMPLE_CACHE = {}


def _sample_by_id():
    """{instance_id: row} of the sampled instances, read once per version of the file
    (input functions call this for every job; re-reading it made DAG building quadratic).
    Resolving it waits for the sampling checkpoint."""
    path = checkpoints.sample_instances.get().output.instances
    key = (path, os.stat(path).st_mtime_ns)
    if key not in _SAMPLE_CACHE:
        with open(path) as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        _SAMPLE_CACHE.clear()
        _SAMPLE_CACHE[key] = {row["instance_id"]: row for row in rows}
    return _SAMPLE_CACHE[key]


def sampled_instances():
    return list(_sample_by_id().values())


def sampled_instance_ids():
    return list(_sample_by_id())


def instance_row(instance_id):
    try:
        return _sample_by_id()[instance_id]
    except KeyError:
        raise ValueError(
            f"instance {instance_id} is not in {LAYOUT.instances()}"
        ) from None


def instance_mirror(instance_id):
    return LAYOUT.mirror_manifest(repo_slug(instance_row(instance_id)["repo"]))


def instance_index(instance_id):
    row = instance_row(instance_id)
    return LAYOUT.index_db(repo_slug(row["repo"]), row["base_commit"])


def keys_of(name, *keys):
    """Some keys of one config section, for params narrower than the section."""
    return {k: v for k, v in section(config, name).items() if k in keys}


def render_params(wc):
    """The renderer settings, for runs under a visual condition only: a text run renders
    nothing, so editing the renderer reruns no text run."""
    if wc.condition == "text":
        return {}
    return section(config, "single_read")["render"]


def agent_conditions():
    """(model, agent, scope, condition) of every cell of the configured matrix."""
    return [
        (model, cell["agent"], cell["scope"], condition)
        for model in config["models"]
        for cell in config["agents"]["matrix"]
        for condition in cell["conditions"]
    ]


def agents_params(wc):
    """The agents section without the matrix, the repeat count and the ablation set-up, so
    that adding a condition, a repeat or a variant re-runs nothing else. A LET variant also
    gets its own entry and the memory options (variant runs only)."""
    agents = section(config, "agents")
    params = {
        k: v
        for k, v in agents.items()
        if k not in ("matrix", "repeats", "variants", "memory", "ablation")
    }
    variant = (agents.get("variants") or {}).get(getattr(wc, "agent", None))
    if variant is not None:
        params.update(variant=variant, memory=agents.get("memory") or {})
    return params


_DEMO_FILES = {}


def ranker_weights(wc=None):
    """The symbol re-ranker's weights, when D_loc uses them: refitting them reruns the
    localization table. Paid runs do not take them as input (trigger policy); each run
    records which weights it saw (provenance.localizer_ranker).
    """
    if config["localize"]["ranker"] != "learned":
        return []
    from swevis.localize.rerank import weights_path

    return [local(str(weights_path()))]


def replay_demos(wc, agent=None):
    """Under the replay backend, the demonstration a run replays and the files it is based
    on: editing a demonstration reruns its runs (and those of the variants based on it).
    """
    if is_live(config["models"][wc.model]):
        return []
    from swevis.agents.demos import demo_files

    demos_dir = (config.get("agents") or {}).get("demos_dir")
    key = (agent or wc.agent, wc.instance, demos_dir)
    if key not in _DEMO_FILES:  # parsed once per DAG build, not once per job and call
        _DEMO_FILES[key] = [str(p) for p in demo_files(*key)]
    # local(): package files, never in a remote default storage (profiles/kubernetes)
    return [local(p) for p in _DEMO_FILES[key]]


def condition_summaries():
    """The summary.json of every condition of the configured matrix."""
    return [LAYOUT.condition_summary(*cell) for cell in agent_conditions()]


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


def condition_runs(wc, name):
    """One file of every run (instances x repeats) of the condition in the wildcards."""
    repeats = int(config["agents"]["repeats"])
    return [
        LAYOUT.run_file(wc.model, wc.agent, wc.scope, wc.condition, i, name, r)
        for i in sampled_instance_ids()
        for r in range(repeats)
    ]
