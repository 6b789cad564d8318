"""Helpers the Snakefile calls while it builds the DAG (kept here so they are tested)."""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import shutil
from importlib.resources import files
from pathlib import Path
from typing import Any, Callable, Iterable

from snakemake.common import overwrite_function_params

from swevis.agents.registry import agent_kind, check_condition, configured_variants, kinds, load_modules, own_section, variant_config
from swevis.sandbox import resolved_environment
from swevis.config import DRAWING_KEYS, ConfigError, check_profile, filled_section, schema_defaults, section, validate_config
from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.models import is_live
from swevis.models.prefix_cache import CacheRule
from swevis.paths import ResultsLayout, repo_slug


def missing_inputs_token(
    ledger: str | Path, outputs: Iterable[str], inputs: Iterable[str], record: bool = True
) -> int:
    """A rule param that changes exactly when expected inputs go missing behind existing outputs.

    Snakemake does not rebuild a deleted intermediate (a condition's summary) while the
    files that consume it (the tables) exist, whatever their mtimes. A param that lists the
    summaries present would trigger the rebuild, but it would also trigger a second,
    needless one on the next run (the params recorded during the rebuild still lack the
    deleted summary). This token avoids that: each time inputs are found missing behind
    the current outputs, the ledger records the event once (keyed by the missing paths and
    the outputs' newest mtime) and the token grows by one; it stays put otherwise, so the
    run after the rebuild sees the same token and does nothing. With `record` false (a dry
    run) the token is what the real run will record, and the ledger is left as it was: a
    preview of a change must not rerun the tables after the change is undone.
    """
    ledger = Path(ledger)
    try:
        state = json.loads(ledger.read_text())
    except (OSError, json.JSONDecodeError):
        state = {"token": 0, "events": []}
    # the outputs first: with none of them built (a fresh study's dry run) no input is
    # looked at, which spares a stat of every run file of every condition
    existing = [Path(p).stat().st_mtime for p in outputs if os.path.exists(p)]
    missing = sorted(p for p in inputs if not os.path.exists(p)) if existing else []
    if missing and existing:
        event = [missing, max(existing)]
        if event not in state["events"]:
            state["events"] = (state["events"] + [event])[-100:]
            state["token"] += 1
            if not record:
                return int(state["token"])
            write_atomic(ledger, json.dumps(state))
    return int(state["token"])


def signature_once(func: Callable) -> Callable:
    """`func`, with its signature recorded for Snakemake: Snakemake inspects the signature of
    an input or param function on every call (inspect.signature, about a tenth of a study's
    DAG build when every run job calls a few); recorded, it reads the attribute instead."""
    overwrite_function_params(func, inspect.signature(func).parameters)
    return func


# Fields of a task row only grading and the summaries read (never an agent or the
# pre-localization): a dataset fix to them regrades (the condition rules read the sample
# whole) without rerunning paid trajectories.
GRADING_FIELDS = ("patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")


class SampleIndex:
    """The sampled instances and the paths derived from them, built once per version of
    instances.jsonl: input functions run for every job of a study (thousands), so what
    they look up per job must be a dict read, not a scan of the sample or a path build.

    It also gives the per-instance rules what they depend on in the sample, as params (`digest`
    of the row without GRADING_FIELDS, `base` repo@commit of a checkout): those rules read
    instances.jsonl as ancient(), so growing or reordering the sample reruns only the jobs of
    the instances it changes (the file is rewritten whenever the sample changes: its mtime
    would rerun all)."""

    def __init__(self, rows: Iterable[dict[str, Any]], layout: ResultsLayout, source: str,
                 localized: Iterable[dict[str, Any]] = ()):
        self.source = source
        rows = list(rows)
        # the localized sets' rows (results/localized_instances.jsonl): mirrored, checked out,
        # indexed and localized, never run, graded or validated
        taken = {row["instance_id"] for row in rows}
        localized = [row for row in localized if row["instance_id"] not in taken]
        self.rows = {row["instance_id"]: row for row in [*rows, *localized]}
        self.mirror, self.index, self.index_checkout, self.digest, self.base = {}, {}, {}, {}, {}
        self.checkout = {}
        for iid in sorted(self.rows):
            row = self.rows[iid]
            slug = repo_slug(row["repo"])
            self.mirror[iid] = layout.mirror_manifest(slug)
            self.index[iid] = layout.index_db(slug, row["base_commit"])
            self.checkout[iid] = layout.checkout_manifest(iid)
            # the index of a repo@commit is built from the checkout of its first instance by
            # id (not by file order: a reordered sample keeps it)
            self.index_checkout.setdefault((slug, row["base_commit"]), self.checkout[iid])
            agent_visible = {k: v for k, v in row.items() if k not in GRADING_FIELDS}
            self.digest[iid] = hashlib.sha256(json.dumps(agent_visible, sort_keys=True).encode()).hexdigest()[:16]
            self.base[iid] = f"{row['repo']}@{row['base_commit']}"
        sampled = list(dict.fromkeys(row["instance_id"] for row in rows))
        self.mirrors = sorted({self.mirror[iid] for iid in sampled})
        self.index_dbs = sorted({self.index[iid] for iid in sampled})
        self.localized = sorted(row["instance_id"] for row in localized)
        # the study's sample (what every table counts) and each probe set's rows, which only
        # the matrix entries naming the set run (tagged "probe_set" by the sampling checkpoint)
        self.study = [iid for iid in sampled if not self.rows[iid].get("probe_set")]
        # what the localization table reads: the study's sample and the localized sets
        self.localization_dbs = sorted({self.index[iid] for iid in [*self.study, *self.localized]})
        self.probes: dict[str, list[str]] = {}
        for iid in sampled:
            row = self.rows[iid]
            if row.get("probe_set"):
                self.probes.setdefault(row["probe_set"], []).append(iid)

    def probe_ids(self, sets: Iterable[str]) -> list[str]:
        """The instances of the probe sets `sets`, set by set."""
        return [iid for name in sets for iid in self.probes.get(name, [])]

    def row(self, instance_id: str) -> dict[str, Any]:
        try:
            return self.rows[instance_id]
        except KeyError:
            raise ValueError(f"instance {instance_id} is not in {self.source}") from None


def agent_param_sets(config: dict) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """run_agent's `agents` param, computed once per DAG build rather than once per job: the
    agents section without the matrix, the repeat count, how runs become jobs (agents.jobs),
    the ablation set-up and the page families' settings (agents.pages: its own param, for the
    conditions that read it) (so adding a condition, a repeat or a variant re-runs nothing
    else); for an agent that declares keys of
    its own (AgentKind.config_keys) the same plus those, without the variants named inside
    them (and without the agent modules: adding one reruns no run of another agent); for each
    variant (agent_variants) its base's plus what the variant reads in their place
    (registry.variant_config: a LET variant's entry as `variant`, a Prometheus ablation's
    agents.prometheus with its overrides) and the memory options.
    Returns (plain, {agent or variant: params})."""
    agents = section(config, "agents")
    own = {key for kind in kinds() for key in kind.config_keys}
    places = {kind.variants_at for kind in kinds() if kind.takes_variants}
    plain = {
        k: v for k, v in agents.items()
        if k not in ("matrix", "repeats", "jobs", "variants", "memory", "ablation", "modules", "pages", *own, *places)
    }
    params: dict[str, dict[str, Any]] = {}
    for kind in kinds():
        if kind.config_keys:
            params[kind.name] = {**plain, **{k: own_section(agents, kind, k) for k in kind.config_keys}}
    for name, (base, _) in agent_variants(config).items():
        params[name] = {**params.get(base, plain), **variant_config(agents, name), "memory": agents.get("memory") or {}}
    return plain, params


def agent_variants(config: dict) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every variant of the config, {name: (base agent, entry)}: LET's of agents.variants,
    Prometheus's of agents.prometheus.ablations (each agent's AgentKind.variants_at)."""
    try:
        return configured_variants(config["agents"])
    except SwevisError as exc:
        raise ConfigError(str(exc)) from None


def matrix_cells(config: dict) -> set[tuple[str, str, str]]:
    """(agent, scope, condition) of every cell of agents.matrix."""
    return {
        (cell["agent"], cell["scope"], condition)
        for cell in config["agents"]["matrix"]
        for condition in cell["conditions"]
    }


def ablation_bases(config: dict) -> list[str]:
    """The agents the configured variants are variants of, in order (LET, Prometheus)."""
    return list(dict.fromkeys(base for base, _ in agent_variants(config).values()))


def ablation_cells(config: dict) -> list[tuple[str, str, str, str]]:
    """(model, agent, scope, condition) of the ablation: each base agent followed by its
    variants (agent_variants), under agents.ablation's models (none = the first profile),
    scopes and conditions; none without variants (rules/ablation.smk runs these; `swevis
    estimate` prices them)."""
    variants = agent_variants(config)
    if not variants:
        return []
    ablation = config["agents"]["ablation"]
    agents = [a for base in ablation_bases(config) for a in [base, *(n for n, (b, _) in variants.items() if b == base)]]
    return [
        (model, agent, scope, condition)
        for model in ablation["models"] or list(config["models"])[:1]
        for agent in agents
        for scope in ablation["scopes"]
        for condition in ablation_conditions(config, variants.get(agent, (agent,))[0])
    ]


def ablation_conditions(config: dict, base: str) -> list[str]:
    """The conditions the variants of `base` (and `base` beside them) run under:
    agents.ablation.agent_conditions' entry for it, else agents.ablation.conditions."""
    ablation = config["agents"]["ablation"]
    return list((ablation.get("agent_conditions") or {}).get(base) or ablation["conditions"])


def matrix_probe_sets(config: dict) -> list[str]:
    """Every probe set a matrix entry names: what the sampling checkpoint adds to the sample."""
    return sorted({name for cell in config["agents"]["matrix"] for name in cell.get("probe_sets") or []})


def cell_probe_sets(config: dict, agent: str, scope: str, condition: str) -> list[str]:
    """The probe sets a condition of the matrix runs besides the study's sample (its entry's
    `probe_sets`; none for an ablation variant, which is no matrix entry)."""
    return sorted({
        name for cell in config["agents"]["matrix"]
        if cell["agent"] == agent and cell["scope"] == scope and condition in cell["conditions"]
        for name in cell.get("probe_sets") or []
    })


def probe_cells(config: dict) -> list[tuple[str, str, str, str]]:
    """(model, agent, scope, condition) of every condition that runs a probe set."""
    return [
        (model, cell["agent"], cell["scope"], condition)
        for model in config["models"]
        for cell in config["agents"]["matrix"] if cell.get("probe_sets")
        for condition in cell["conditions"]
    ]


def table_models(config: dict) -> list[str]:
    """Models of Table 1 and Table 2: analysis.table_models, or the first two profiles."""
    return list((config.get("analysis") or {}).get("table_models") or list(config["models"]))[:2]


def check_config(config: dict, schema_path: str | Path) -> dict:
    """Validate the workflow's config in place (defaults filled in), then check_study."""
    validate_config(config, Path(schema_path))
    check_study(config)
    return config


def check_study(config: dict) -> None:
    """Cross-references the schema cannot express, checked while the DAG is built, so that
    a study that would fail in every paid job, or build tables with an empty column, stops
    before anything runs with a ConfigError naming the key."""
    check_bundled_sets(config)
    check_task_languages(config)
    check_agents(config)
    check_models(config)
    check_ablation(config)
    check_tables(config)
    check_render_guard(config)


def check_render_guard(config: dict) -> None:
    """A way of drawing with no measured readability guard (and no render.min_font_px) would
    fail at the first render of every job that renders: say so while the DAG is built. The
    default drawing's guard is in the table, so only a config that changes how glyphs are
    drawn pays the renderer's import (0.1 s a Snakemake start)."""
    render = (config.get("single_read") or {}).get("render") or {}
    if render.get("min_font_px") is not None or not set(render) & set(DRAWING_KEYS):
        return
    from swevis.render.settings import RenderSettings

    try:
        RenderSettings.from_config(render).guard_px()
    except SwevisError as exc:
        raise ConfigError(f"config key 'single_read/render': {exc}") from None


def check_agents(config: dict) -> None:
    """The agent modules import, every agent of the matrix is registered and takes the page
    families its conditions name (AgentKind.page_families), every variant is
    named where its base agent takes variants, and each override a variant makes is a key
    of its base's section, with a value the schema accepts there."""
    agents = config["agents"]
    load_modules(agents["modules"])
    for i, cell in enumerate(agents["matrix"]):
        try:
            agent_kind(cell["agent"])
        except SwevisError as exc:
            raise ConfigError(f"config key 'agents/matrix/{i}/agent': {exc}") from None
        check_probe_sets(cell, i)
        for k, condition in enumerate(cell["conditions"]):  # a page family the agent does not take
            try:
                check_condition(cell["agent"], condition, f"agents/matrix/{i}/conditions/{k}")
            except SwevisError as exc:
                raise ConfigError(str(exc)) from None
    for name in agent_variants(config):
        check_variant_entry(agents, name)
    table3 = (config.get("analysis") or {}).get("table3_agent")
    if table3 is not None and not agent_kind(table3).commits_plan:
        raise ConfigError(f"config key 'analysis/table3_agent': {table3!r} commits no plan, so it has no locator split")


def check_task_languages(config: dict) -> None:
    """tasks.languages names languages swevis can index: refused while planning, not by the
    sampling job (the tasks package is imported only when the key lists any)."""
    if config["tasks"]["languages"]:
        from swevis.tasks.languages import check_languages

        check_languages(config["tasks"]["languages"])


def check_bundled_sets(config: dict) -> None:
    """tasks.bundled_set (of a bundled study) and tasks.localized_sets name sets of the bundled
    sample (folders beside its repos/)."""
    from swevis.tasks.bundled import bundled_set_names

    known = bundled_set_names()
    tasks = config.get("tasks") or {}
    named = [("bundled_set", tasks.get("bundled_set"))] if tasks.get("source", "bundled") == "bundled" else []
    named += [("localized_sets", name) for name in tasks.get("localized_sets") or []]
    for key, name in named:
        if name and name not in known:
            raise ConfigError(f"config key 'tasks/{key}': {name!r} is not a set of the bundled sample ({', '.join(known)})")


def check_probe_sets(cell: dict, i: int) -> None:
    """Each probe set a matrix entry names is a bundled one (a folder of the bundled sample
    beside its study sample, swevis.tasks.bundled)."""
    from swevis.tasks.bundled import probe_set_names

    known = probe_set_names()
    for name in cell.get("probe_sets") or []:
        if name not in known:
            raise ConfigError(
                f"config key 'agents/matrix/{i}/probe_sets': the entry {cell['agent']}-{cell['scope']} names "
                f"probe set {name!r}, which is not a bundled probe set ({', '.join(known) or 'none'})"
            )


def check_variant_entry(agents: dict, name: str) -> None:
    """A variant whose entry overrides its base's section (registry.variant_config): its keys
    are keys of that section and the section with them passes the schema; the error names
    the variant's key. (A LET variant's entry is checked by the schema itself.)"""
    try:
        overridden = variant_config(agents, name)
    except SwevisError as exc:
        raise ConfigError(str(exc)) from None
    if "variant" in overridden:
        return
    [(key, value)] = overridden.items()
    try:
        filled_section("agents", {key: value})
    except ConfigError as exc:
        where = agent_kind(name).variants_at.replace(".", "/")
        raise ConfigError(str(exc).replace(f"config key 'agents/{key}/", f"config key 'agents/{where}/{name}/", 1)) from None


def check_playback_cache_family(name: str, family: str | None) -> None:
    """A playback run bills through its family's rule as the schema sets it (a run's params
    carry its profile, not counterfactual.prompt_cache): a family only this config defines
    is refused while planning, not at the run's first call."""
    families = schema_defaults()["counterfactual"]["prompt_cache"]
    if family is not None and family not in families:
        raise ConfigError(f"config key 'models/{name}/prompt_cache': playback bills with the schema's prefix cache "
                          f"families ({', '.join(sorted(families))}), and {family!r} is not one of them")


def check_models(config: dict) -> None:
    """Every profile's prefix cache family is one of counterfactual.prompt_cache (playback and
    the replay bill through it); a live profile names its model and may run where the config
    puts its commands; the API key's variable is never passed through to commands."""
    profiles = config["models"]
    agents = config["agents"]
    for name, profile in profiles.items():
        CacheRule.from_config(profile["prompt_cache"], config["counterfactual"]["prompt_cache"], name)
        if not is_live(profile):
            check_playback_cache_family(name, profile["prompt_cache"])
            continue
        if not profile.get("model_id"):
            raise ConfigError(f"config key 'models/{name}/model_id': a live profile (backend openai) must name its model")
        # auto puts a live model in Docker (no engine: its runs fail, they never fall back to the host)
        if resolved_environment(agents["environment"], live_model=True) == "local" and not agents["allow_live_on_host"]:
            raise ConfigError(
                f"config key 'agents/allow_live_on_host': profile {name!r} is live and agents.environment is local, "
                "so its commands would run on this host: set it to true to acknowledge, or use environment: docker or auto"
            )
        key_env = profile.get("api_key_env")
        if key_env in (agents.get("env_passthrough") or []):
            raise ConfigError(f"config key 'agents/env_passthrough': {key_env} is profile {name!r}'s API key variable")


def check_tables(config: dict) -> None:
    """Table models are profiles, the single-read backbones too, and the baseline (Table 1's
    mini column, every reduction's denominator) is a cell of the matrix."""
    models = list(config["models"])
    analysis = config.get("analysis") or {}
    for model in analysis.get("table_models") or []:
        check_profile(model, models, "analysis/table_models")
    study_backbones(config)  # single_read.backbones: profiles of `models`
    baseline = analysis["baseline"]
    cell = (baseline["agent"], baseline["scope"], baseline["condition"])
    if cell not in matrix_cells(config):
        raise ConfigError(
            f"config key 'analysis/baseline': {'/'.join(cell)} is not a cell of agents.matrix; add it "
            "(it is the tables' mini column and every reduction's reference) or name another baseline"
        )


def check_ablation(config: dict) -> None:
    """Ablation models are profiles, and every ablation scope and condition is a cell of
    agents.matrix for each variant's base agent (the reference the variants are compared with)."""
    agents = config["agents"]
    if not agent_variants(config):
        return
    ablation = agents.get("ablation") or {}
    for model in ablation.get("models") or []:
        check_profile(model, list(config["models"]), "agents/ablation/models")
    cells = matrix_cells(config)
    pairs = {(agent, scope) for agent, scope, _ in cells}
    bases = ablation_bases(config)
    for base in ablation.get("agent_conditions") or {}:
        if base not in bases:
            raise ConfigError(
                f"config key 'agents/ablation/agent_conditions': {base!r} is no agent with variants "
                f"(those with variants: {', '.join(bases)})"
            )
    for base in bases:
        for scope in ablation["scopes"]:
            if (base, scope) not in pairs:
                raise ConfigError(
                    f"config key 'agents/ablation/scopes': {scope!r} has no {base} cell in agents.matrix"
                )
            for condition in ablation_conditions(config, base):
                if (base, scope, condition) not in cells:
                    key = "agent_conditions/" + base if base in (ablation.get("agent_conditions") or {}) else "conditions"
                    raise ConfigError(
                        f"config key 'agents/ablation/{key}': {condition!r} is not a condition of the "
                        f"{base} {scope} cell in agents.matrix"
                    )


# Which backbones and trajectory sets a config names (the single-read and counterfactual
# rules read them while the DAG is built).


def ocr_readers() -> list[str]:
    """The OCR readers installed here, as swevis.render.ocr.available_readers says (rapidocr,
    and Tesseract where its program is on PATH), without importing the renderer while the DAG
    is built. A param of the frontier's rules: installing Tesseract reruns the frontier."""
    return ["rapidocr", "tesseract"] if shutil.which("tesseract") else ["rapidocr"]


def tesseract_reading() -> str | None:
    """How Tesseract reads a page (swevis.render.tesseract.READ in words) where it is
    installed, else None. A param of the frontier's parts: a new read setting reruns them."""
    from swevis.render.tesseract import READ

    return READ.describe() if shutil.which("tesseract") else None


def study_backbones(config: dict) -> dict[str, dict]:
    """{profile: {tokenizer, image_family}} of the backbones the study accounts, in order:
    single_read.backbones, or every model profile when that list is empty."""
    names = config["single_read"]["backbones"] or list(config["models"])
    return _backbone_keys(config["models"], names, "single_read.backbones: {name!r} is not a profile in models")


def set_folders(cfg: dict) -> dict[str, str]:
    """Each set of config `counterfactual.sets` and its folder (no path: the bundled set)."""
    bundled = str(files("swevis") / "data" / "trajectories")
    return {name: entry.get("path") or bundled for name, entry in cfg["counterfactual"]["sets"].items()}


# the keys of a profile token accounting reads, and those the replay's cache-aware billing reads
ACCOUNTING_KEYS = ("tokenizer", "image_family")
BILLING_KEYS = ("prompt_cache", "cost_per_1k_prompt", "cost_per_1k_cached_prompt", "cost_per_1k_completion")


def backbone_profiles(cfg: dict) -> dict[str, dict[str, str]]:
    """The backbones of the counterfactual replay (config `counterfactual.backbones`, null =
    every profile): their token accounting and their prefix cache family and prices."""
    names = cfg["counterfactual"]["backbones"] or list(cfg["models"])
    backbones = _backbone_keys(cfg["models"], names, "config key 'counterfactual.backbones': {name!r} is not a profile of models",
                               ACCOUNTING_KEYS + BILLING_KEYS)
    for name, keys in backbones.items():
        CacheRule.from_config(keys["prompt_cache"], cfg["counterfactual"]["prompt_cache"], name)
    return backbones


def _backbone_keys(models: dict, names: list[str], unknown: str,
                   keys: tuple[str, ...] = ACCOUNTING_KEYS) -> dict[str, dict[str, str]]:
    """{profile: {key: value}} of `names` in order, only `keys` (a rule's narrow params; by
    default token accounting's). `unknown` is the error for a name that is not a profile;
    a key the profile leaves out takes the schema's default."""
    for name in names:
        if name not in models:
            raise SwevisError(unknown.format(name=name))
    defaults = filled_section("models", {"profile": {}})["profile"]
    return {n: {k: models[n].get(k, defaults[k]) for k in keys} for n in names}


def devset_params(config: dict, *keys: str) -> dict[str, Any]:
    """The `devset` keys a rule of rules/devset.smk reads: its paths and `keys` (narrow
    params: changing another key reruns nothing), in key order."""
    ordered = section(config, "devset")
    return {k: ordered[k] for k in sorted({"lists", "verified", "mirrors", "work", *keys})}


def devset_small_files(config: dict) -> list[str]:
    """Every file of the small cases the fit of the shipped weights adds (devset.fit.synthetic):
    the held-out sets' and the bundled sample's instances' (swevis.localize.devset.small)."""
    devset = config["devset"]
    if not devset["fit"]["synthetic"]:
        return []
    sample = Path(str(files("swevis.data"))) / "sample" / "instances"
    folders = [*sorted(Path(devset["lists"]).glob("heldout_localization*")), sample]
    return [str(p) for folder in folders for p in sorted(folder.rglob("*")) if p.is_file()]
