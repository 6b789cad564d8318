import pytest

from stratconf import InterpolationError, resolve
from stratconf.interpolate import references


def test_simple_reference():
    tree = {"db": {"host": "h", "url": "pg://${db.host}/x"}}
    assert resolve(tree)["db"]["url"] == "pg://h/x"


def test_whole_value_keeps_type():
    tree = {"base": {"port": 8080}, "server": {"port": "${base.port}"}}
    assert resolve(tree)["server"]["port"] == 8080


def test_chained_references():
    tree = {"a": "${b}", "b": "${c}", "c": "end"}
    assert resolve(tree) == {"a": "end", "b": "end", "c": "end"}


def test_default_value():
    assert resolve({"x": "${missing:-fallback}"})["x"] == "fallback"


def test_unknown_key():
    with pytest.raises(InterpolationError, match="unknown key 'nope'"):
        resolve({"x": "${nope}"})


def test_cycle_detected():
    with pytest.raises(InterpolationError, match="cycle"):
        resolve({"a": "${b}", "b": "${a}"})


def test_escape():
    assert resolve({"x": "cost $${price}"})["x"] == "cost ${price}"


def test_references_lists_keys():
    assert references("${a.b} and ${c:-1}") == ["a.b", "c"]
    assert references(42) == []


def test_lists_are_resolved():
    assert resolve({"h": "x", "l": ["${h}", "y"]})["l"] == ["x", "y"]
