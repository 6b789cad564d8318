import copy
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate as snakemake_validate

from swevis.config import SCHEMA_PATH, ConfigError, load_config, validate_config

from helpers import PROJECT_ROOT


def test_shipped_config_is_valid_and_defaults_are_filled():
    cfg = load_config(PROJECT_ROOT / "config.yaml")
    assert cfg["tasks"]["source"] == "bundled"
    assert cfg["tasks"]["remote_url"] == "https://github.com/{repo}.git"  # default filled in
    assert list(cfg["models"]) == ["qwen3.5", "kimi-k2.5"]
    assert cfg["models"]["kimi-k2.5"]["temperature"] == 0.0
    assert cfg["models"]["kimi-k2.5"]["max_tokens"] == 4096
    assert cfg["models"]["kimi-k2.5"]["preloc_max_tokens"] == 1600


def test_empty_config_gets_every_default():
    cfg = validate_config({})
    assert cfg["results_dir"] == "results"
    assert cfg["tasks"]["n"] is None and cfg["tasks"]["seed"] == 20260519


def test_each_validation_fills_in_fresh_defaults():
    """The schema is loaded once per process: a default filled into one config must be a copy,
    so changing it in place leaves the next config's default alone."""
    first = validate_config({})
    first["agents"]["matrix"].append({"agent": "mini", "scope": "normal", "conditions": ["r9"]})
    first["single_read"]["ratios"].clear()
    second = validate_config({})
    assert second["agents"]["matrix"] != first["agents"]["matrix"]
    assert second["single_read"]["ratios"] and second == validate_config({})


def test_schema_errors_match_snakemakes_own_validator():
    """validate_config is snakemake.utils.validate's recipe with the schema loaded once: the
    same configs pass with the same defaults filled in, and the same first error is named."""
    for config in ({}, {"tasks": {"n": 3}}, {"models": {"q": {"backend": "playback"}}}):
        theirs = copy.deepcopy(config)
        snakemake_validate(theirs, str(SCHEMA_PATH), set_default=True)
        assert validate_config(config) == theirs
    for bad in ({"tasks": {"n": "x"}}, {"agents": {"matrix": [{"agent": "zz"}]}}, {"bogus": 1}):
        with pytest.raises(WorkflowError) as theirs:
            snakemake_validate(copy.deepcopy(bad), str(SCHEMA_PATH), set_default=True)
        with pytest.raises(ConfigError) as ours:
            validate_config(bad)
        reason = str(ours.value).split(": ", 1)[1]
        assert f"ValidationError: {reason}" in str(theirs.value)

@pytest.mark.parametrize(
    "bad, key, words",
    [
        ({"tasks": {"sourc": "bundled"}}, "tasks", "'sourc' was unexpected"),
        ({"bogus": 1}, "<top level>", "'bogus' was unexpected"),
        ({"tasks": {"n": "ten"}}, "tasks/n", "not of type"),
        ({"tasks": {"n": 0}}, "tasks/n", "less than the minimum"),
        ({"tasks": {"source": "github"}}, "tasks/source", "is not one of"),
        ({"models": {"q": {"temperature": "hot"}}}, "models/q/temperature", "not of type"),
        ({"models": {"q": {"max_token": 5}}}, "models/q", "'max_token' was unexpected"),
    ],
)
def test_schema_errors_name_the_key(bad, key, words):
    with pytest.raises(ConfigError) as info:
        validate_config(bad)
    message = str(info.value)
    assert f"config key '{key}'" in message
    assert words in message


def test_the_old_backend_name_replay_is_refused_in_one_line_that_says_playback(tmp_path: Path):
    """The backend that plays back recorded turns is named playback (`swevis replay` is the
    counterfactual): a config still naming the backend by its old name fails on load, naming the key
    and the name to write, before any run starts."""
    old_name = "replay"
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"models": {"q": {"backend": old_name}}}))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and "config key 'models/q/backend'" in message
    assert '"replay" is not a backend: write playback' in message


def test_load_config_names_the_file(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("tasks:\n  seed: abc\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: config key 'tasks/seed'"):
        load_config(path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


@pytest.mark.parametrize("name, given", [
    ("agents", {}), ("agents", {"memory": {"threshold": 0.5}, "pages": {}}), ("harness", {"kind": "docker"}),
    ("localize", {}), ("models", {"p": {"backend": "playback"}}), ("single_read", {"ocr": {"full": True}}),
])
def test_a_filled_section_is_the_section_a_whole_config_validation_fills(name, given):
    """filled_section validates against its section's schema only (the whole schema also
    fills every other section): the same values, and the same one-line errors."""
    from swevis.config import _FILLED, filled_section

    _FILLED.clear()
    assert filled_section(name, given) == validate_config({name: copy.deepcopy(given)})[name]
    bad = {**given, "no_such_key": 1}
    with pytest.raises(ConfigError) as whole:
        validate_config({name: bad})
    with pytest.raises(ConfigError) as section:
        filled_section(name, bad)
    assert str(section.value) == str(whole.value)
