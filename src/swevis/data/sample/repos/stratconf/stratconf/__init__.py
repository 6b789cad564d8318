"""stratconf: layered configuration for applications.

Sources (files, environment, dicts) are merged by precedence, ``${...}``
references are interpolated and a :class:`~stratconf.schema.Schema` coerces
and validates the result.
"""

from .errors import ConfigError, InterpolationError, SourceError, ValidationError
from .interpolate import resolve
from .loader import Config, Loader, explain, load
from .merge import deep_merge, merge_all
from .schema import Boolean, Choice, Field, Float, Integer, List, Schema, String

__version__ = "0.1"

__all__ = [
    "Boolean", "Choice", "Config", "ConfigError", "Field", "Float", "Integer",
    "InterpolationError", "List", "Loader", "Schema", "SourceError", "String",
    "ValidationError", "deep_merge", "explain", "load", "merge_all", "resolve",
]
