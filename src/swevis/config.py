"""Load and validate config.yaml outside Snakemake (CLI, tests) with the workflow's own schema."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from swevis.errors import SwevisError

# inside the package, so an installed wheel (not only an editable checkout) validates configs
SCHEMA_PATH = Path(__file__).resolve().parent / "data" / "config.schema.yaml"


class ConfigError(SwevisError, ValueError):
    """A config file that does not satisfy the schema; the message names the key."""


def validate_config(config: dict[str, Any], schema_path: Path = SCHEMA_PATH) -> dict[str, Any]:
    """Validate `config` in place against the schema and fill in defaults.

    Uses snakemake.utils.validate so the CLI and the workflow accept exactly the same files.
    """
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    try:
        validate(config, str(schema_path), set_default=True)
    except WorkflowError as exc:
        raise ConfigError(_summarize_schema_error(exc)) from None
    return config


def _summarize_schema_error(exc: Exception) -> str:
    """Snakemake's message embeds the whole schema; keep the reason and the key path."""
    text = str(exc)
    reason = re.search(r"ValidationError: (.*)", text)
    where = re.search(r"On instance((?:\[[^\]]*\])*)", text)
    if not reason:
        return text
    keys = re.findall(r"\[([^\]]*)\]", where.group(1)) if where else []
    path = "/".join(k.strip("'\"") for k in keys) or "<top level>"
    return f"config key '{path}': {reason.group(1)}"


def load_config(path: str | Path) -> dict[str, Any]:
    """Read a YAML config file and validate it; errors name the file and the key."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist" if not path.exists() else f"config file {path} is not a file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    try:
        return validate_config(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


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
    if key not in _FILLED:  # one validation costs ~0.17 s (snakemake reloads the schema)
        _FILLED[key] = validate_config({name: json.loads(key[1])})[name]
    return copy.deepcopy(_FILLED[key])


_FILLED: dict[tuple[str, str], dict[str, Any]] = {}
