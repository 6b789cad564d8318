"""One grammar of condition names (text, r<positive number>) for the config schema, the
Snakemake wildcards, the CLIs and the observation pipeline."""

from __future__ import annotations

import argparse
import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from swevis.agents.observation.observe import ObservationConfig
from swevis.conditions import PATTERN, Condition, ConditionError, condition_arg, conditions_arg, ratio_arg
from swevis.config import SCHEMA_PATH, ConfigError, load_schema, validate_config
from swevis.paths import WILDCARD_CONSTRAINTS

from helpers import PROJECT_ROOT

GOOD = [("text", None), ("r1", 1.0), ("r3", 3.0), ("r2.5", 2.5), ("r0.5", 0.5), ("r10", 10.0), ("r7.25", 7.25)]
BAD = ["r0", "r-1", "rX", "R3", "r3.0", "r03", "r0.0", "r", "", "TEXT", " r3", "r3 ", "r1e3", "rinf", "rnan", "r3,r5"]


@pytest.mark.parametrize("name,ratio", GOOD)
def test_good_names_parse_and_round_trip(name, ratio):
    c = Condition.parse(name)
    assert c.ratio == ratio and c.visual == (ratio is not None) and str(c) == name


@pytest.mark.parametrize("name", BAD)
def test_bad_names_are_one_line_errors_naming_the_value(name):
    with pytest.raises(ConditionError) as exc:
        Condition.parse(name)
    assert repr(name) in str(exc.value) and "\n" not in str(exc.value)


def test_near_misses_name_the_canonical_spelling():
    for name in ("r3.0", "R3", "r03"):
        with pytest.raises(ConditionError, match="write r3$"):
            Condition.parse(name)


@pytest.mark.parametrize("ratio", [0, -1, float("nan"), float("inf"), True, "3"])
def test_a_condition_needs_a_positive_finite_ratio(ratio):
    with pytest.raises(ConditionError):
        Condition(ratio)


def test_ratios_print_as_their_condition():
    assert [str(Condition(r)) for r in (1, 3.0, 2.5, 1e-7, 1e16)] == ["r1", "r3", "r2.5", "r0.0000001", "r10000000000000000"]
    assert Condition(3) == Condition.parse("r3")


def _schema_condition_patterns(node):
    if isinstance(node, dict):
        if "pattern" in node and "text" in node["pattern"]:
            yield node["pattern"]
        for key, value in node.items():
            if key != "errorMessage":  # the pattern's explanation in words, not a pattern
                yield from _schema_condition_patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schema_condition_patterns(value)


def test_schema_wildcards_and_parser_share_one_grammar():
    patterns = list(_schema_condition_patterns(load_schema()))
    # agents.matrix, agents.ablation (conditions and agent_conditions), analysis.baseline;
    # counterfactual.conditions adds mem (its own test)
    assert len(patterns) == 5 and patterns.count(f"^({PATTERN})$") == 4
    assert WILDCARD_CONSTRAINTS["condition"] == PATTERN
    # the file itself names no family: swevis.config fills in the grammar of the registered ones
    assert list(_schema_condition_patterns(yaml.safe_load(SCHEMA_PATH.read_text()))) == []


@pytest.mark.parametrize("name", ["r0", "rX", "R3", "r3.0", "r-1"])
def test_the_config_rejects_bad_conditions_by_key(name):
    config = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text())
    config["agents"]["matrix"] = [{"agent": "plb", "scope": "normal", "conditions": ["text", name]}]
    with pytest.raises(ConfigError, match=r"config key 'agents/matrix/0/conditions/1'"):
        validate_config(config)


@given(st.text(alphabet="rtexR0123456789.-X ", max_size=8))
def test_every_reader_agrees_on_every_name(name):
    """Parser, wildcard constraint and schema pattern accept exactly the same names."""
    try:
        parsed = Condition.parse(name)
    except ConditionError:
        parsed = None
    assert (parsed is not None) == bool(re.fullmatch(WILDCARD_CONSTRAINTS["condition"], name))
    assert (parsed is not None) == bool(re.search(f"^({PATTERN})$", name))
    if parsed is not None:
        assert str(parsed) == name


def test_the_observation_pipeline_reads_the_ratio_from_the_condition():
    assert ObservationConfig(condition="r2.5").ratio == 2.5
    assert ObservationConfig(condition="text").ratio is None
    assert ObservationConfig(condition="r3", visual_enabled=False).ratio is None
    for name in ("r0", "rX"):  # r0 used to run silently as text
        with pytest.raises(ConditionError, match=repr(name)):
            ObservationConfig(condition=name)


def test_argparse_types_give_the_parsers_message():
    assert str(condition_arg("r3")) == "r3"
    assert [str(c) for c in conditions_arg("text, r1,r3")] == ["text", "r1", "r3"]
    assert ratio_arg("2.5") == 2.5 and ratio_arg("r3") == 3.0
    for arg, value, message in [
        (condition_arg, "rX", "unknown condition 'rX'"),
        (conditions_arg, "text,rX", "unknown condition 'rX'"),
        (conditions_arg, " , ", "no conditions given"),
        (conditions_arg, "r3,text,r3", "condition r3 given more than once"),
        (ratio_arg, "0", "ratio must be a positive number"),
        (ratio_arg, "nan", "ratio must be a positive number"),
        (ratio_arg, "three", "ratio must be a positive number"),
        (ratio_arg, "r0", "unknown condition 'r0'"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            arg(value)


def test_counterfactual_costs_refuse_a_bad_condition_before_any_run(tmp_path):
    """A bad name used to run anyway and come back as a row with a made-up ratio to text."""
    from swevis.agents.run.spec import RunInputs
    from swevis.counterfactual.replay import counterfactual_costs

    with pytest.raises(ConditionError, match="'rX'"):
        counterfactual_costs(tmp_path / "never-read.json", ["text", "rX"], RunInputs(model="m", profile={}, row={}, mirror=""))


@given(st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False))
def test_table4_columns_are_named_like_the_conditions(ratio):
    """single_read.ratios are numbers; Table 4 names each column with the condition's spelling."""
    from swevis.analysis.single_read import _ratio_label

    label = _ratio_label(ratio)
    assert label == str(Condition(ratio)) and Condition.parse(label) == Condition(ratio)
