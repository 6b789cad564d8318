"""Combine sources into one validated :class:`Config`."""

from collections.abc import Mapping

from .merge import deep_merge, merge_all
from .sources import DictSource, EnvSource, source_for_path
from .tree import deep_copy, flatten, get_path

_NOTHING = object()


class Config(Mapping):
    """Read-only view of a configuration tree.

    Keys may be dotted: ``config["db.port"]``. Sections are returned as
    :class:`Config` objects and are also reachable as attributes.
    """

    def __init__(self, data, sources=()):
        self._data = data
        self.sources = list(sources)

    def __getitem__(self, key):
        value = get_path(self._data, key)
        return Config(value, self.sources) if isinstance(value, Mapping) else value

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no configuration key {name!r}") from None

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def as_dict(self):
        """A deep copy of the underlying tree."""
        return deep_copy(self._data)

    def flat(self):
        return flatten(self._data)

    def __repr__(self):
        return f"Config({self._data!r})"


class Loader:
    """Collects sources in order of increasing precedence.

    >>> loader = Loader(schema)
    >>> loader.add_file("defaults.ini").add_file("local.json", optional=True)
    >>> loader.add_env("APP_")
    >>> config = loader.load()

    The merged tree is interpolated (``${a.b}``) and then validated against the
    schema, if one was given.
    """

    def __init__(self, schema=None):
        self.schema = schema
        self.sources = []

    def add(self, source):
        self.sources.append(source)
        return self

    def add_file(self, path, optional=False):
        return self.add(source_for_path(path, optional=optional))

    def add_env(self, prefix, separator="__", environ=None):
        return self.add(EnvSource(prefix, separator, environ))

    def add_dict(self, data, name="dict", flat=False):
        return self.add(DictSource(data, name, flat))

    def merged(self):
        """Merge every source (and the schema defaults) without validating."""
        trees = [source.load() for source in self.sources]
        merged = merge_all(trees)
        if self.schema is not None:
            merged = deep_merge(self.schema.defaults(), merged)
        return merged

    def load(self):
        tree = self.merged()
        if self.schema is not None:
            tree = self.schema.validate(tree)
        return Config(tree, self.sources)


def load(*paths, env_prefix=None, schema=None, overrides=None, environ=None):
    """One-call helper: files in order, then environment, then ``overrides``."""
    loader = Loader(schema)
    for path in paths:
        loader.add_file(path)
    if env_prefix:
        loader.add_env(env_prefix, environ=environ)
    if overrides:
        loader.add_dict(overrides, name="overrides", flat=True)
    return loader.load()


def explain(loader, key):
    """Return ``[(source_name, value)]`` for every source that sets ``key``."""
    found = []
    for source in loader.sources:
        value = get_path(source.load(), key, _NOTHING)
        if value is not _NOTHING:
            found.append((source.name, value))
    return found
