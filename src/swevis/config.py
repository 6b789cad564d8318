"""Load and validate config.yaml outside Snakemake (CLI, tests) with the workflow's own schema."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from swevis.conditions import PATTERN, REPLAY_PATTERN, spelled_conditions
from swevis.errors import SwevisError

# inside the package, so an installed wheel (not only an editable checkout) validates configs
SCHEMA_PATH = Path(__file__).resolve().parent / "data" / "config.schema.yaml"


# the single_read.render settings that decide how a glyph reads, so pick its measured
# readability guard (swevis.render.guards), in the order a guard table row names them; here,
# so the workflow's config check can name them without importing the renderer
DRAWING_KEYS = ("font", "font_mode", "line_height", "stroke_px", "highlight", "rows_on_patch_grid")


class ConfigError(SwevisError, ValueError):
    """A config file that does not satisfy the schema; the message names the key."""


def validate_config(config: dict[str, Any], schema_path: Path = SCHEMA_PATH) -> dict[str, Any]:
    """Validate `config` in place against the schema and fill in defaults.

    The workflow (swevis.workflow.check_config) and the CLI both call this, so they accept
    exactly the same files. It is snakemake.utils.validate's recipe (Draft 2020-12, each
    `default` filled in while validating, the first error raised) with the schema loaded
    once: Snakemake's function re-reads and re-parses the 800-line schema on every call
    (0.12-0.4 s a call, 4 ms here), and every Snakemake start validates several times.
    """
    return _validated(config, schema_path, None)


def _validated(config: dict[str, Any], schema_path: Path, section: str | None) -> dict[str, Any]:
    """validate_config against the whole schema, or (`section`) against that section's only."""
    try:
        _default_filling_validator(str(schema_path), image_family_names(), section).validate(config)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(k) for k in exc.absolute_path) or "<top level>"
        raise ConfigError(f"config key '{where}': {_in_words(exc)}") from None
    check_distinct_cells(config)
    check_frontier_sample(config)
    check_prices(config)
    return config


def _in_words(exc: jsonschema.ValidationError) -> str:
    """jsonschema's message, or the schema's own words for the failed keyword: an
    `errorMessage: {keyword: text}` beside it (ajv-errors' convention), so a pattern error
    says which forms are allowed instead of printing the regular expression."""
    words = (exc.schema.get("errorMessage") or {}).get(exc.validator) if isinstance(exc.schema, dict) else None
    if words:
        return f"{json.dumps(exc.instance)} {words}"
    return exc.message.splitlines()[0]


def check_frontier_sample(config: dict[str, Any]) -> None:
    """A frontier font sample that names none of the frontier's fonts would read no page at
    all, silently: say so (with `full` the sample is not used)."""
    ocr = ((config.get("single_read") or {}).get("ocr")) or {}
    sample, fonts = ocr.get("sample_frontier_fonts") or [], ocr.get("frontier_fonts") or []
    if sample and fonts and not ocr.get("full") and not {float(f) for f in sample} & {float(f) for f in fonts}:
        raise ConfigError(
            f"config key 'single_read/ocr/sample_frontier_fonts': {json.dumps(sample)} names none of "
            f"frontier_fonts {json.dumps(fonts)}; list some of them, or [] to read every font"
        )


def check_prices(config: dict[str, Any]) -> None:
    """A profile's prices against each other: a provider bills the prompt tokens it serves
    from its prefix cache at a fraction of the uncached price, never above it (a cached price
    above the uncached one is a slip between the two keys, and would make caching cost)."""
    for name, profile in (config.get("models") or {}).items():
        cached, uncached = profile.get("cost_per_1k_cached_prompt"), profile.get("cost_per_1k_prompt") or 0.0
        if cached is not None and cached > uncached:
            raise ConfigError(
                f"config key 'models/{name}/cost_per_1k_cached_prompt': {json.dumps(cached)} is above "
                f"cost_per_1k_prompt ({json.dumps(uncached)}); a cached prompt token costs at most an uncached one"
            )


def check_distinct_cells(config: dict[str, Any]) -> None:
    """Each (agent, scope) pair once in agents.matrix: a second entry would be a second row
    of the same cell in the tables (the schema's uniqueItems only catches identical entries)."""
    seen: dict[tuple[str, str], int] = {}
    for i, cell in enumerate((config.get("agents") or {}).get("matrix") or []):
        key = (cell.get("agent"), cell.get("scope"))
        if key in seen:
            raise ConfigError(
                f"config key 'agents/matrix/{i}': {key[0]}/{key[1]} is already entry {seen[key]}; "
                "list all of its conditions in one entry"
            )
        seen[key] = i


def image_family_names() -> tuple[str, ...]:
    """The image families swevis accounts: the names of swevis.tokens' registry (imported
    here, when a config is validated, so importing swevis.config stays light)."""
    from swevis.tokens import FAMILIES

    return tuple(FAMILIES)


def load_schema(schema_path: str | Path = SCHEMA_PATH) -> dict[str, Any]:
    """The schema as the validator reads it: the YAML file, with the allowed values of
    `models.<name>.image_family` filled in from swevis.tokens' registry and the grammar of
    its condition keys from swevis.conditions."""
    return _with_conditions(_with_image_families(_read_schema(schema_path), image_family_names()))


def _read_schema(schema_path: str | Path) -> dict[str, Any]:
    return yaml.load(Path(schema_path).read_text(encoding="utf-8"), Loader=YAML_LOADER)


def _with_image_families(schema: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """`schema` with the image-family enum filled in, so the families are listed once, in
    swevis.tokens, beside their token formulas."""
    family = schema["properties"]["models"]["additionalProperties"]["properties"]["image_family"]
    family["enum"] = list(names)
    family["errorMessage"] = {"enum": f"is not an image family; known: {', '.join(names)}"}
    return schema


# the keys that take a condition and a replay condition ("[]": an item, "<name>": any key)
CONDITION_KEYS = ("agents/matrix/[]/conditions/[]", "agents/ablation/conditions/[]",
                  "agents/ablation/agent_conditions/<name>/[]", "analysis/baseline/condition")
REPLAY_CONDITION_KEYS = ("counterfactual/conditions/[]",)


def schema_node(schema: dict[str, Any], key: str) -> dict[str, Any]:
    """The schema node of a config key written as CONDITION_KEYS are."""
    node = schema
    for part in key.split("/"):
        node = node["items"] if part == "[]" else node["additionalProperties"] if part == "<name>" \
            else node["properties"][part]
    return node


def _with_conditions(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with the pattern of each condition key (and its words) filled in from
    swevis.conditions, whose grammar is built from the registered page families: the
    families are named once, each in its module of swevis.page_families."""
    for key in CONDITION_KEYS:
        schema_node(schema, key).update(pattern=f"^({PATTERN})$", errorMessage={
            "pattern": f"is not a condition: a condition is {spelled_conditions()} (or mask-kM+hist-rN, maskb-kM+hist-rN), N a "
                       "positive number and M a positive whole number, each written in its shortest form (r1, r3, "
                       "r2.5, k5)"})
    for key in REPLAY_CONDITION_KEYS:
        schema_node(schema, key)["pattern"] = f"^({REPLAY_PATTERN})$"
    return schema


@functools.lru_cache(maxsize=32)
def _default_filling_validator(
    schema_path: str, families: tuple[str, ...], section: str | None = None,
) -> jsonschema.protocols.Validator:
    """A validator of the schema at `schema_path`, its image families `families`, that fills
    in each property's default (a fresh copy: the loaded schema is shared by every validation
    in the process). The families are part of the key, so the validator follows the registry.
    `section`: a validator of a config of that one top-level section (the schema has no
    constraint across sections), which does not fill in every other section's defaults."""
    if section is not None:
        whole = _default_filling_validator(schema_path, families, None)  # validate_config's own key
        if section not in whole.schema["properties"]:  # the whole schema's error names it
            return whole
        return _filling_validator({**whole.schema, "properties": {section: whole.schema["properties"][section]}})
    return _filling_validator(_with_conditions(_with_image_families(_read_schema(schema_path), families)))


def _filling_validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """Draft 2020-12 on `schema`, each property's default filled in while validating."""
    check_properties = jsonschema.Draft202012Validator.VALIDATORS["properties"]

    def fill_defaults(validator, properties, instance, subschema):
        if isinstance(instance, dict):
            for name, prop in properties.items():
                if "default" in prop:
                    instance.setdefault(name, copy.deepcopy(prop["default"]))
        yield from check_properties(validator, properties, instance, subschema)

    filling = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"properties": fill_defaults})
    return filling(schema)


# libyaml's loader when PyYAML was built with it (7x faster on the schema, 20x on the bundled
# demonstrations, which every plan of the workflow reads), else the pure one
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_config(path: str | Path) -> dict[str, Any]:
    """Read a YAML config file and validate it; errors name the file and the key."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist" if not path.exists() else f"config file {path} is not a file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if data is None:  # empty, blank or comments only: a mistake, not a wish for the defaults
        raise ConfigError(f"config file {path} is empty (leave --config out to run on the schema's defaults)")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    try:
        return validate_config(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


# The config a subcommand reads when --config is not given, if the working folder has one.
WORKFLOW_CONFIG = "config.yaml"


def load_user_config(path: str | Path | None) -> tuple[dict[str, Any], str]:
    """(validated config, how messages name it) for a subcommand: `path` (--config), else
    the working folder's config.yaml, else the schema's defaults alone, so every subcommand
    runs outside the workflow folder."""
    if path is not None:
        return load_config(path), str(path)
    if Path(WORKFLOW_CONFIG).is_file():
        return load_config(WORKFLOW_CONFIG), WORKFLOW_CONFIG
    return validate_config({}), "the schema's defaults (no --config, no config.yaml here)"


def config_hash(config: dict[str, Any]) -> str:
    """A short stable hash of a (validated) config, recorded in every result file."""
    blob = json.dumps(config, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def section(config: dict[str, Any], name: str) -> dict[str, Any]:
    """A deep copy of one config section, for narrow rule params (see the trigger policy),
    its mappings in key order: Snakemake compares params as written, so the order of keys
    in a config file must not rerun anything."""
    return key_ordered(config.get(name, {}))


def key_ordered(value: Any) -> Any:
    """A deep copy of `value` with every mapping's keys sorted."""
    if isinstance(value, dict):
        return {k: key_ordered(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [key_ordered(v) for v in value]
    return copy.deepcopy(value)


@functools.lru_cache(maxsize=1)
def _schema_defaults_json() -> str:
    return json.dumps(validate_config({}))


def schema_defaults(name: str | None = None) -> Any:
    """The schema's defaults (of one section), a fresh copy: the one place defaults live.
    Library readers called outside Snakemake (tests, CLI, benchmarks) fill partial options
    from here instead of restating defaults in Python."""
    defaults = json.loads(_schema_defaults_json())
    return defaults if name is None else defaults[name]


def with_defaults(defaults: dict[str, Any], options: dict[str, Any] | None) -> dict[str, Any]:
    """`options` over `defaults`, merged key by key into nested mappings."""
    out = copy.deepcopy(defaults)
    for key, value in (options or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = with_defaults(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def check_profile(model: str, models: list[str], key: str) -> None:
    """A model named under `key` must be a profile of `models` (a one-line ConfigError)."""
    if model not in models:
        raise ConfigError(f"config key '{key}': {model!r} is not a profile in models ({', '.join(models)})")


def filled_section(name: str, value: dict[str, Any]) -> dict[str, Any]:
    """`value` as config section `name` after validation, every schema default filled in.

    A validated config carries its defaults already; this is for code that starts from a
    partial dict (tests, the CLI, a profile passed by hand), so the schema stays the one
    source of defaults. Raises ConfigError naming the key."""
    key = (name, json.dumps(value, sort_keys=True, default=str))
    if key not in _FILLED:
        # this section's schema only: the whole schema's defaults were 25 ms a call, and an
        # agent job fills a dozen sections
        _FILLED[key] = _validated({name: json.loads(key[1])}, SCHEMA_PATH, name)[name]
    return copy.deepcopy(_FILLED[key])


_FILLED: dict[tuple[str, str], dict[str, Any]] = {}


def typed_section(cls: type, name: str, given: dict[str, Any] | None, *, within: tuple[str, ...] = ()) -> Any:
    """The settings dataclass `cls` from config section `name` (or the sub-mapping at `within`
    inside it): the keys `cls` has fields for, filled through the schema, lists as tuples.
    The one way a stage's settings come from its config, so every default is the schema's."""
    names = [f.name for f in fields(cls)]
    ours: dict[str, Any] = {k: v for k, v in (given or {}).items() if k in names}
    for key in reversed(within):
        ours = {key: ours}
    section = filled_section(name, ours)
    for key in within:
        section = section[key]
    return cls(**{n: tuple(section[n]) if isinstance(section[n], list) else section[n] for n in names})
