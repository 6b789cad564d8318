"""Declarative schemas: typed fields with defaults, coercion and validation.

Values read from environment variables and INI files are strings; each
:class:`Field` coerces them to its Python type.
"""

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping

from .errors import ValidationError
from .tree import deep_copy

MISSING = object()


class Field(ABC):
    """Abstract base of schema fields."""

    type_name = "value"

    def __init__(self, default=MISSING, required=None, help=""):
        self.default = default
        self.required = default is MISSING if required is None else required
        self.help = help

    @abstractmethod
    def coerce(self, value):
        """Convert ``value`` to the field type or raise ValueError."""

    def validate(self, value):
        """Hook for range/choice checks after coercion; raise ValueError."""

    def clean(self, value):
        value = self.coerce(value)
        self.validate(value)
        return value

    def describe(self):
        default = "" if self.default is MISSING else f" (default {self.default!r})"
        return f"{self.type_name}{default}"


class String(Field):
    type_name = "string"

    def __init__(self, default=MISSING, pattern=None, **kw):
        super().__init__(default, **kw)
        self.pattern = re.compile(pattern) if pattern else None

    def coerce(self, value):
        if isinstance(value, (dict, list)):
            raise ValueError(f"expected a string, got {type(value).__name__}")
        return str(value)

    def validate(self, value):
        if self.pattern and not self.pattern.fullmatch(value):
            raise ValueError(f"{value!r} does not match {self.pattern.pattern!r}")


class Number(Field):
    """Base of numeric fields with optional ``minimum`` and ``maximum``."""

    python_type = float

    def __init__(self, default=MISSING, minimum=None, maximum=None, **kw):
        super().__init__(default, **kw)
        self.minimum, self.maximum = minimum, maximum

    def coerce(self, value):
        if isinstance(value, bool):
            raise ValueError("expected a number, got a boolean")
        if isinstance(value, str):
            value = value.strip().replace("_", "")
        try:
            return self.python_type(value)
        except (TypeError, ValueError):
            raise ValueError(f"expected {self.type_name}, got {value!r}") from None

    def validate(self, value):
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{value} is below the minimum {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"{value} is above the maximum {self.maximum}")


class Integer(Number):
    type_name = "integer"
    python_type = int

    def coerce(self, value):
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"expected integer, got {value!r}")
        return super().coerce(value)


class Float(Number):
    type_name = "float"
    python_type = float


class Boolean(Field):
    type_name = "boolean"
    TRUE = {"1", "true", "yes", "on"}
    FALSE = {"0", "false", "no", "off", ""}

    def coerce(self, value):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in self.TRUE:
            return True
        if text in self.FALSE:
            return False
        raise ValueError(f"expected a boolean, got {value!r}")


class Choice(String):
    type_name = "choice"

    def __init__(self, choices, default=MISSING, **kw):
        super().__init__(default, **kw)
        self.choices = list(choices)

    def validate(self, value):
        if value not in self.choices:
            raise ValueError(f"{value!r} is not one of {', '.join(map(str, self.choices))}")


class List(Field):
    """A list of items; strings are split on ``separator``."""

    type_name = "list"

    def __init__(self, item=None, default=MISSING, separator=",", **kw):
        super().__init__(default, **kw)
        self.item = item or String()
        self.separator = separator

    def coerce(self, value):
        if isinstance(value, str):
            value = [v.strip() for v in value.split(self.separator) if v.strip()]
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"expected a list, got {type(value).__name__}")
        return [self.item.clean(v) for v in value]


class Schema:
    """A nested mapping of names to fields (or nested mappings)."""

    def __init__(self, fields, strict=False):
        self.fields = fields
        self.strict = strict
        self._defaults = self._collect_defaults(fields)

    @classmethod
    def _collect_defaults(cls, fields):
        defaults = {}
        for name, field in fields.items():
            if isinstance(field, Mapping):
                defaults[name] = cls._collect_defaults(field)
            elif field.default is not MISSING:
                defaults[name] = deep_copy(field.default)
        return defaults

    def defaults(self):
        """The tree of default values (shared; do not modify)."""
        return self._defaults

    def validate(self, tree):
        """Coerce ``tree`` against the schema; raise ValidationError on problems."""
        errors = []
        result = self._validate_level(self.fields, tree, "", errors)
        if errors:
            raise ValidationError(errors)
        return result

    def _validate_level(self, fields, tree, prefix, errors):
        result = {}
        for name, field in fields.items():
            key = f"{prefix}{name}"
            value = tree.get(name, MISSING) if isinstance(tree, Mapping) else MISSING
            if isinstance(field, Mapping):
                if value is MISSING:
                    value = {}
                if not isinstance(value, Mapping):
                    errors.append((key, "expected a section"))
                    continue
                result[name] = self._validate_level(field, value, key + ".", errors)
            elif value is MISSING:
                if field.required:
                    errors.append((key, "is required"))
            else:
                try:
                    result[name] = field.clean(value)
                except ValueError as exc:
                    errors.append((key, str(exc)))
        if isinstance(tree, Mapping):
            for name in tree:
                if name not in fields:
                    if self.strict:
                        errors.append((f"{prefix}{name}", "unknown key"))
                    else:
                        result[name] = tree[name]
        return result
