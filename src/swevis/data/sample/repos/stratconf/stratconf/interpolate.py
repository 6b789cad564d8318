"""``${section.key}`` interpolation inside configuration values.

* ``${db.host}`` is replaced by the value at ``db.host``;
* ``${db.host:-localhost}`` falls back to ``localhost`` if the key is missing;
* ``$${`` produces a literal ``${``.

A value that consists of a single reference keeps the referenced value's type,
so ``port = ${defaults.port}`` stays an int when ``defaults.port`` is one.
"""

import re
from collections.abc import Mapping

from .errors import InterpolationError
from .tree import get_path

REFERENCE = re.compile(r"(?<!\$)\$\{([A-Za-z0-9_.\-]+)(?::-([^}]*))?\}")
ESCAPE = "$${"
MAX_DEPTH = 32


def references(value):
    """Return the dotted keys referenced by a string value."""
    if not isinstance(value, str):
        return []
    return [m.group(1) for m in REFERENCE.finditer(value)]


class Interpolator:
    """Resolve references against one configuration tree."""

    def __init__(self, tree):
        self.tree = tree
        self._cache = {}
        self._active = []

    def lookup(self, key, default=None):
        """Resolved value of ``key`` (following references recursively)."""
        if key in self._cache:
            return self._cache[key]
        if key in self._active:
            chain = " -> ".join(self._active + [key])
            raise InterpolationError(self._active[0], f"reference cycle {chain}")
        if len(self._active) >= MAX_DEPTH:
            raise InterpolationError(key, "references nested too deeply")
        try:
            raw = get_path(self.tree, key)
        except KeyError:
            if default is not None:
                return default
            origin = self._active[-1] if self._active else key
            raise InterpolationError(origin, f"unknown key {key!r}") from None
        self._active.append(key)
        try:
            value = self.resolve_value(raw)
        finally:
            self._active.pop()
        self._cache[key] = value
        return value

    def _render_string(self, text):
        whole = REFERENCE.fullmatch(text)
        if whole:
            return self.lookup(whole.group(1), whole.group(2))

        def replace(match):
            return self.lookup(match.group(1), match.group(2))

        return REFERENCE.sub(replace, text).replace(ESCAPE, "${")

    def resolve_value(self, value):
        if isinstance(value, str):
            return self._render_string(value)
        if isinstance(value, Mapping):
            return {k: self.resolve_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve_value(v) for v in value]
        return value

    def resolve(self):
        result = {}
        for key, value in self.tree.items():
            self._active.append(str(key))
            try:
                result[key] = self.resolve_value(value)
            finally:
                self._active.pop()
        return result


def resolve(tree):
    """Return a copy of ``tree`` with every reference substituted."""
    return Interpolator(tree).resolve()
