"""Environment variables as a configuration source."""

import os

from .base import Source


class EnvSource(Source):
    """Read variables that start with ``prefix``.

    ``APP_DB__HOST=x`` with prefix ``APP_`` becomes ``{"db": {"host": "x"}}``:
    the prefix is removed, the rest is lower-cased and split on ``separator``.
    """

    def __init__(self, prefix, separator="__", environ=None):
        if not prefix:
            raise ValueError("EnvSource needs a non-empty prefix")
        self.prefix = prefix
        self.separator = separator
        self.environ = environ
        self.name = f"env:{prefix}*"

    def _key_path(self, variable):
        rest = variable[len(self.prefix):]
        return [part.lower() for part in rest.split(self.separator) if part]

    def load(self):
        environ = os.environ if self.environ is None else self.environ
        tree = {}
        for variable in sorted(environ):
            if not variable.startswith(self.prefix):
                continue
            parts = self._key_path(variable)
            if not parts:
                continue
            node = tree
            for part in parts[:-1]:
                child = node.get(part)
                if not isinstance(child, dict):
                    child = node[part] = {}
                node = child
            node[parts[-1]] = environ[variable]
        return tree
