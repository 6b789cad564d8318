from stratconf import deep_merge, merge_all
from stratconf.merge import diff


def test_later_values_win():
    assert deep_merge({"a": 1, "b": 2}, {"b": 3}) == {"a": 1, "b": 3}


def test_sections_merge_key_by_key():
    base = {"db": {"host": "a", "port": 1}}
    assert deep_merge(base, {"db": {"port": 2}}) == {"db": {"host": "a", "port": 2}}


def test_lists_are_replaced():
    assert deep_merge({"x": [1, 2]}, {"x": [3]}) == {"x": [3]}


def test_scalar_replaces_section():
    assert deep_merge({"x": {"y": 1}}, {"x": 5}) == {"x": 5}


def test_merge_all_precedence():
    trees = [{"a": 1, "s": {"k": 1}}, {"a": 2}, {"s": {"k": 3, "j": 4}}]
    assert merge_all(trees) == {"a": 2, "s": {"k": 3, "j": 4}}


def test_diff_lists_changed_leaves():
    old = {"a": 1, "s": {"k": 1, "j": 2}}
    new = {"a": 1, "s": {"k": 5, "j": 2}, "b": True}
    assert diff(old, new) == [("b", None, True), ("s.k", 1, 5)]
