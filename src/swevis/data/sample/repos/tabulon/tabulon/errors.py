"""Errors raised by tabulon."""


class TableError(Exception):
    """Base class of tabulon errors."""


class ColumnError(TableError):
    """Unknown column, duplicate column or a value a column cannot format."""


class RenderError(TableError):
    """The table cannot be rendered (unknown format, width too small, ...)."""
