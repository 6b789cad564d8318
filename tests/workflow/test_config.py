from pathlib import Path

import pytest

from swevis.config import ConfigError, load_config, validate_config

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


def test_load_config_names_the_file(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("tasks:\n  seed: abc\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: config key 'tasks/seed'"):
        load_config(path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
