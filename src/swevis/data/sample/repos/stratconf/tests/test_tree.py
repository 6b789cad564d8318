import pytest

from stratconf.tree import deep_copy, flatten, get_path, set_path, split_key, unflatten


def test_get_path_nested():
    assert get_path({"a": {"b": 3}}, "a.b") == 3


def test_get_path_default_and_missing():
    assert get_path({"a": {}}, "a.b", None) is None
    with pytest.raises(KeyError):
        get_path({"a": {}}, "a.b")


def test_set_path_creates_sections():
    tree = set_path({}, "x.y.z", 1)
    assert tree == {"x": {"y": {"z": 1}}}


def test_split_key_rejects_empty_parts():
    with pytest.raises(KeyError):
        split_key("a..b")


def test_flatten_roundtrip():
    tree = {"a": {"b": 1, "c": {"d": [1, 2]}}, "e": {}}
    flat = flatten(tree)
    assert flat == {"a.b": 1, "a.c.d": [1, 2], "e": {}}
    assert unflatten(flat) == tree


def test_deep_copy_is_independent():
    tree = {"a": {"b": [1]}}
    copy = deep_copy(tree)
    copy["a"]["b"].append(2)
    assert tree == {"a": {"b": [1]}}
