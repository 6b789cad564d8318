"""Typed columns: each knows how to format and align its values."""

import datetime as _dt
from abc import ABC, abstractmethod
from enum import Enum

from .errors import ColumnError
from .formatting import format_bytes, format_number, format_percent


class Align(Enum):
    LEFT = "left"
    RIGHT = "right"
    CENTER = "center"

    @classmethod
    def parse(cls, value) -> "Align":
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).lower())
        except ValueError:
            raise ColumnError(f"unknown alignment {value!r}") from None


class Column(ABC):
    """Abstract column.

    ``max_width`` limits the column; longer cells are wrapped when ``wrap`` is
    true and truncated otherwise.
    """

    default_align = Align.LEFT

    def __init__(self, name, header=None, align=None, max_width=None, wrap=False,
                 missing=""):
        self.name = name
        self.header = name if header is None else header
        self.align = Align.parse(align) if align is not None else self.default_align
        self.max_width = max_width
        self.wrap = wrap
        self.missing = missing

    def format(self, value) -> str:
        """Text of one cell; ``None`` becomes ``missing``."""
        if value is None:
            return self.missing
        try:
            return self.format_value(value)
        except (TypeError, ValueError) as exc:
            raise ColumnError(f"column {self.name!r} cannot format {value!r}: {exc}") from None

    @abstractmethod
    def format_value(self, value) -> str:
        """Format a non-None value."""

    def sort_key(self, value):
        """Key used by :meth:`Table.sort_by`; the raw value by default."""
        return value

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class TextColumn(Column):
    def format_value(self, value):
        return str(value)


class IntColumn(Column):
    default_align = Align.RIGHT

    def __init__(self, name, thousands=True, **kw):
        super().__init__(name, **kw)
        self.thousands = thousands

    def format_value(self, value):
        return format_number(int(value), 0, self.thousands)


class FloatColumn(Column):
    default_align = Align.RIGHT

    def __init__(self, name, decimals=2, thousands=True, **kw):
        super().__init__(name, **kw)
        self.decimals = decimals
        self.thousands = thousands

    def format_value(self, value):
        return format_number(float(value), self.decimals, self.thousands)


class PercentColumn(FloatColumn):
    def __init__(self, name, decimals=1, **kw):
        super().__init__(name, decimals=decimals, **kw)

    def format_value(self, value):
        return format_percent(float(value), self.decimals)


class BytesColumn(Column):
    default_align = Align.RIGHT

    def format_value(self, value):
        return format_bytes(int(value))


class BoolColumn(Column):
    default_align = Align.CENTER

    def __init__(self, name, true="yes", false="no", **kw):
        super().__init__(name, **kw)
        self.true, self.false = true, false

    def format_value(self, value):
        return self.true if value else self.false


class DateColumn(Column):
    def __init__(self, name, fmt="%Y-%m-%d", **kw):
        super().__init__(name, **kw)
        self.fmt = fmt

    def format_value(self, value):
        if isinstance(value, str):
            value = _dt.date.fromisoformat(value)
        return value.strftime(self.fmt)


_BY_TYPE = {
    "text": TextColumn, "str": TextColumn, "int": IntColumn, "float": FloatColumn,
    "percent": PercentColumn, "bytes": BytesColumn, "bool": BoolColumn, "date": DateColumn,
}


def make_column(name, kind="text", **options) -> Column:
    """Create a column from a type name such as ``"int"`` or ``"percent"``."""
    try:
        cls = _BY_TYPE[kind]
    except KeyError:
        raise ColumnError(f"unknown column type {kind!r}") from None
    return cls(name, **options)


def infer_column(name, values) -> Column:
    """Guess a column type from sample values (ignoring None)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return BoolColumn(name)
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return IntColumn(name)
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return FloatColumn(name)
    if present and all(isinstance(v, _dt.date) for v in present):
        return DateColumn(name)
    return TextColumn(name)
