"""Merging configuration trees with precedence.

Later trees win. Nested sections are merged key by key; any other value
(including lists) from the later tree replaces the earlier one.
"""

from collections.abc import Mapping


def _merge_into(target, override):
    for key, value in override.items():
        existing = target.get(key)
        if isinstance(existing, Mapping) and isinstance(value, Mapping):
            _merge_into(existing, value)
        elif isinstance(value, Mapping):
            target[key] = dict(value)
        else:
            target[key] = value


def deep_merge(base, override):
    """Return a new tree: ``base`` updated recursively with ``override``.

    Neither argument is modified.
    """
    result = dict(base)
    _merge_into(result, override)
    return result


def merge_all(trees):
    """Merge an iterable of trees from lowest to highest precedence."""
    result = {}
    for tree in trees:
        result = deep_merge(result, tree)
    return result


def diff(old, new, prefix=""):
    """List ``(key, old_value, new_value)`` for leaves that differ."""
    changes = []
    for key in sorted(set(old) | set(new), key=str):
        full = f"{prefix}.{key}" if prefix else str(key)
        a, b = old.get(key), new.get(key)
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            changes.extend(diff(a, b, full))
        elif a != b:
            changes.append((full, a, b))
    return changes
