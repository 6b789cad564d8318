"""The agent registry: each agent of the matrix is one module that declares an `AgentKind`.

The workflow, the CLI, the counterfactual replay and the analysis ask this registry what an
agent needs (an index, a pre-localization call), which of its phases localize, whether it
commits a plan, which figure shows its actions; none of them compares agent names. The
built-in agents are the modules of `swevis.agents.builtin` (mini, plb, let, prometheus); a study adds its own with
config `agents.modules` (importable module names, each defining ``AGENT = AgentKind(...)``).

A variant is an agent of the matrix whose name is ``<base>-<suffix>`` (let-mem): it runs as
its base agent, with the hooks the base's `make_hooks` builds from its config entry. Only
agents that declare `takes_variants` take them, named where their `variants_at` says
(`configured_variants`; `variant_config` is what a variant's run reads of config `agents`).

This module is light on purpose (the Snakefile imports it while the DAG is built): an
agent's module imports what its run needs inside its `run` function.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any, Callable

from swevis.conditions import DEFAULT_FAMILY
from swevis.errors import SwevisError

BUILTIN_MODULES = ("swevis.agents.builtin.mini", "swevis.agents.builtin.plb", "swevis.agents.builtin.let", "swevis.agents.builtin.prometheus")
# a registered name: lower-case, no '-' (that separates a variant's suffix, and the scope in
# run folders <agent>-<scope>); swevis.paths.AGENT matches these and their variants
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class AgentKind:
    """What every part of swevis may know about one agent; its module declares it."""

    name: str  # the matrix's agent name and its run folders' prefix (<name>-<scope>)
    title: str  # the name tables and figures print
    # runs one trajectory: run(AgentRun) -> (the final phase's exit extra, the plan or None)
    run: Callable[[Any], tuple[dict[str, Any], dict[str, Any] | None]]
    phases: tuple[str, ...]  # its model conversations, in order (traj.json "phases")
    prompts: tuple[str, ...] = ()  # the templates it renders (src/swevis/prompts/<name>.jinja)
    tools: tuple[str, ...] = ()  # the tools it is given beside (or instead of) bash
    needs_index: bool = False  # its tools read the repository index
    needs_preloc: bool = False  # an offline pre-localization call precedes the run (PLB)
    # phases whose viewed windows are its localization evidence; None: every phase
    evidence_phases: tuple[str, ...] | None = None
    commits_plan: bool = False  # it commits a plan of snippets (evidence coverage, Figure 6)
    action_figure: str | None = None  # the figure of its action classes (figure2.png ...)
    # builds the run's hooks (its working memory, a variant's stages; AgentRun.variant):
    # make_hooks(spec, recorder) -> hooks or None
    make_hooks: Callable[[Any, Any], Any] | None = None
    takes_variants: bool = False  # config names variants <name>-<suffix> of it (at variants_at)
    # where in config `agents` its variants are named (<name>-<suffix> -> entry): a key of its
    # own ("variants": agents.variants, LET's), whose entry its run reads whole as `variant`;
    # or "<section>.<key>" inside one of its config_keys sections ("prometheus.ablations"),
    # whose entry overrides keys of that section for the variant's runs
    variants_at: str = "variants"
    # keys of config `agents` only this agent's runs read (their params: editing them reruns
    # no other agent's runs)
    config_keys: tuple[str, ...] = ()
    # the page families its conditions may name (swevis.page_families: every agent takes the
    # default, r<N>; the others need a loop that sends each observation through
    # ObservationPipeline.finish and each request through ObservationPipeline.request, as
    # mini's adapter does, and such an agent takes conditions.FAMILY_NAMES)
    page_families: tuple[str, ...] = (DEFAULT_FAMILY.name,)

    def __post_init__(self) -> None:
        if not NAME.match(self.name):
            raise SwevisError(f"agent name {self.name!r}: lower-case letters, digits and '_' only")
        section, _, leaf = self.variants_at.partition(".")
        if "." in leaf or (leaf and section not in self.config_keys):
            raise SwevisError(f"agent {self.name!r}: variants_at {self.variants_at!r} is a key of config agents, "
                              "or <one of its config_keys>.<key>")


_AGENTS: dict[str, AgentKind] = {}
_LOADED: set[str] = set()


def register(kind: AgentKind) -> AgentKind:
    """Add an agent (a module's AGENT); registering another agent under a taken name fails."""
    known = _AGENTS.get(kind.name)
    if known is not None and known is not kind:
        raise SwevisError(f"agent {kind.name!r} is registered twice")
    _AGENTS[kind.name] = kind
    return kind


def load_modules(modules: list[str] | tuple[str, ...] = ()) -> None:
    """Import the built-in agents' modules and `modules` (config agents.modules), registering
    the AGENT each declares. Idempotent."""
    for module in (*BUILTIN_MODULES, *modules):
        if module in _LOADED:
            continue
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            raise SwevisError(f"config key 'agents/modules': cannot import agent module {module!r} ({exc})") from None
        kind = getattr(loaded, "AGENT", None)
        if not isinstance(kind, AgentKind):
            raise SwevisError(f"config key 'agents/modules': module {module!r} defines no AGENT = AgentKind(...)")
        register(kind)
        _LOADED.add(module)


def names() -> list[str]:
    """The registered agents, built-ins first."""
    load_modules()
    return list(_AGENTS)


def kinds() -> list[AgentKind]:
    """The registered agents' declarations, built-ins first."""
    load_modules()
    return list(_AGENTS.values())


def action_figures() -> dict[str, AgentKind]:
    """figure file -> the agent whose action classes it shows, by file name."""
    return {k.action_figure: k for k in sorted(kinds(), key=lambda k: k.action_figure or "") if k.action_figure}


def base_name(agent: str) -> str:
    """The registered agent an agent of the matrix runs as: itself, or a variant's base."""
    return agent.split("-", 1)[0]


def is_variant(agent: str) -> bool:
    return base_name(agent) != agent


def agent_kind(agent: str) -> AgentKind:
    """The AgentKind an agent (or a variant) runs as; a one-line error for an unknown one."""
    load_modules()
    kind = _AGENTS.get(base_name(agent))
    if kind is None:
        raise SwevisError(f"unknown agent {agent!r}: one of {', '.join(_AGENTS)} (or a module of agents.modules)")
    if is_variant(agent) and not kind.takes_variants:
        raise SwevisError(f"agent {agent!r}: {kind.name} takes no variants")
    return kind


def check_condition(agent: str, condition: str, key: str | None = None) -> None:
    """A one-line error when `agent` cannot run under `condition`'s page family (naming the
    config `key` that gave the condition, when one did)."""
    from swevis.conditions import MASKED_FAMILIES, Condition, page_family

    c = Condition.parse(condition)
    # masking rewrites each request's history as hist does: an agent takes it when it takes hist
    needs = [(f, c.page_family.spelling) for f in ([c.family] if c.visual and not c.page_family.every_agent else [])]
    needs += [(f, c.mask.spelling) for f in (MASKED_FAMILIES if c.mask is not None else ())]
    if not needs:
        return  # text and rN: every agent
    kind = agent_kind(agent)
    missing = next((spelling for family, spelling in needs if family not in kind.page_families), None)
    if missing is not None:
        where = f"config key '{key}': " if key else ""
        raise SwevisError(f"{where}agent {agent} takes no {missing} condition ({condition}); "
                          f"it takes {', '.join(page_family(f).spelling for f in kind.page_families)}")


def find_kind(agent: str) -> AgentKind | None:
    """The AgentKind of a recorded run's agent, or None when it is not registered here (an
    agent module this process did not load): readers of results skip what they cannot tell."""
    try:
        return agent_kind(agent)
    except SwevisError:
        return None


def variant_bases() -> list[str]:
    """The agents that take variants (agents.variants are theirs; the ablation compares with them)."""
    load_modules()
    return [k.name for k in _AGENTS.values() if k.takes_variants]


def preloc_agent() -> str:
    """The agent whose runs start from the offline pre-localization (its demonstrations
    play back the pre-localization call)."""
    load_modules()
    found = [k.name for k in _AGENTS.values() if k.needs_preloc]
    if len(found) != 1:
        raise SwevisError(f"exactly one agent may need the pre-localization, found {found}")
    return found[0]


def configured_variants(agents_cfg: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every variant config `agents` names, {name: (base agent, entry)}, each agent's where its
    `variants_at` says, in the registry's order; a name in another agent's place, or of an
    agent that takes no variants, is a one-line error naming the key."""
    load_modules()
    places = list(dict.fromkeys(k.variants_at for k in _AGENTS.values() if k.takes_variants))
    if "variants" not in places:
        places.insert(0, "variants")  # agents.variants is checked even when no agent reads it
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for place in places:
        for name, entry in (_at(agents_cfg, place) or {}).items():
            kind = _AGENTS.get(base_name(name))
            if kind is None or not kind.takes_variants:
                takers = ", ".join(k.name for k in _AGENTS.values() if k.takes_variants) or "none does"
                raise SwevisError(f"config key 'agents/{place.replace('.', '/')}/{name}': "
                                  f"{base_name(name)!r} is no agent that takes variants ({takers})")
            if kind.variants_at != place:
                raise SwevisError(f"config key 'agents/{place.replace('.', '/')}/{name}': "
                                  f"{kind.name}'s variants are named in agents.{kind.variants_at}")
            found[name] = (kind.name, entry or {})
    return found


def variant_config(agents_cfg: dict[str, Any], agent: str) -> dict[str, Any]:
    """The keys of config `agents` a variant's run reads in place of its base's: {"variant":
    entry} for a variant named in a mapping of its own (agents.variants), or the section its
    `variants_at` lies in, without the variants and with the entry over it ({"prometheus": ...}).
    An entry key the section has not is a one-line error naming it; {} for no variant."""
    if not is_variant(agent):
        return {}
    variants = configured_variants(agents_cfg)
    if agent not in variants:
        raise SwevisError(f"unknown agent {agent!r}: not a configured variant ({', '.join(variants) or 'none'})")
    base, entry = variants[agent]
    kind = agent_kind(base)
    if "." not in kind.variants_at:
        return {"variant": entry}
    section_key = kind.variants_at.split(".")[0]
    section = own_section(agents_cfg, kind, section_key) or {}
    unknown = sorted(set(entry) - set(section))
    if unknown:
        raise SwevisError(f"config key 'agents/{kind.variants_at.replace('.', '/')}/{agent}/{unknown[0]}': "
                          f"not a key of agents.{section_key} ({', '.join(sorted(section))})")
    return {section_key: {**section, **entry}}


def own_section(agents_cfg: dict[str, Any], kind: AgentKind, key: str) -> Any:
    """Config `agents.<key>` (one of the agent's config_keys) as its runs read it: without the
    variants named inside it, so naming a variant reruns no run of the agent itself."""
    value = agents_cfg.get(key)
    section_key, _, leaf = kind.variants_at.partition(".")
    if kind.takes_variants and leaf and section_key == key and isinstance(value, dict):
        return {k: v for k, v in value.items() if k != leaf}
    return value


def _at(mapping: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(part)
    return mapping
