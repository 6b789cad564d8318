"""tabulon: typed text tables rendered as plain text, Markdown or reStructuredText."""

from .columns import (
    Align,
    BoolColumn,
    BytesColumn,
    Column,
    DateColumn,
    FloatColumn,
    IntColumn,
    PercentColumn,
    TextColumn,
    make_column,
)
from .errors import ColumnError, RenderError, TableError
from .formatting import display_width, format_number
from .table import Table

__version__ = "0.1"

__all__ = [
    "Align", "BoolColumn", "BytesColumn", "Column", "ColumnError", "DateColumn",
    "FloatColumn", "IntColumn", "PercentColumn", "RenderError", "Table", "TableError",
    "TextColumn", "display_width", "format_number", "make_column",
]
