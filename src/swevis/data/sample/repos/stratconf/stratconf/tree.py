"""Helpers for nested dictionaries addressed by dotted keys (``"db.port"``)."""

from collections.abc import Mapping

SEP = "."


def split_key(key):
    """Split a dotted key into its parts, rejecting empty components."""
    if isinstance(key, (list, tuple)):
        return list(key)
    parts = str(key).split(SEP)
    if any(not p for p in parts):
        raise KeyError(f"invalid key {key!r}")
    return parts


def get_path(tree, key, default=KeyError):
    """Return the value at ``key``; raise KeyError unless ``default`` is given."""
    node = tree
    for part in split_key(key):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif default is KeyError:
            raise KeyError(key)
        else:
            return default
    return node


def set_path(tree, key, value):
    """Set ``key`` in ``tree``, creating intermediate dictionaries."""
    parts = split_key(key)
    node = tree
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[parts[-1]] = value
    return tree


def flatten(tree, prefix=""):
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``; empty sections are kept as ``{}``."""
    flat = {}
    for key, value in tree.items():
        full = f"{prefix}{SEP}{key}" if prefix else str(key)
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, full))
        else:
            flat[full] = value
    return flat


def unflatten(flat):
    """Inverse of :func:`flatten`."""
    tree = {}
    for key, value in flat.items():
        set_path(tree, key, value)
    return tree


def deep_copy(tree):
    """Copy nested dicts and lists (other values are shared)."""
    if isinstance(tree, Mapping):
        return {k: deep_copy(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [deep_copy(v) for v in tree]
    return tree
