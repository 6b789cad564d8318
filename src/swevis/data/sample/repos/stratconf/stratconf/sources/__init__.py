"""Configuration sources: each turns some input into a nested dict."""

from .base import FileSource, Source
from .env import EnvSource
from .ini import IniSource
from .json_source import JsonSource
from .mapping import DictSource

__all__ = ["DictSource", "EnvSource", "FileSource", "IniSource", "JsonSource", "Source",
           "source_for_path"]


def source_for_path(path, optional=False):
    """Pick a file source class from the file extension."""
    lowered = str(path).lower()
    if lowered.endswith(".json"):
        return JsonSource(path, optional=optional)
    if lowered.endswith((".ini", ".cfg", ".conf")):
        return IniSource(path, optional=optional)
    raise ValueError(f"no source for {path!r}: unsupported extension")
