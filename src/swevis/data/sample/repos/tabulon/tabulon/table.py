"""The :class:`Table` model: typed columns and rows of values."""

from collections.abc import Mapping

from .columns import Column, infer_column, make_column
from .errors import ColumnError, TableError


class Table:
    """Rows of values under typed columns.

    Rows are stored as lists in column order. ``add_row`` accepts a sequence
    or a mapping keyed by column name (missing keys become ``None``).
    """

    def __init__(self, columns=(), title=None):
        self.columns = []
        self.rows = []
        self.title = title
        for column in columns:
            self.add_column(column)

    # -- columns ------------------------------------------------------------------
    def add_column(self, column, kind="text", **options) -> Column:
        if not isinstance(column, Column):
            column = make_column(column, kind, **options)
        if any(c.name == column.name for c in self.columns):
            raise ColumnError(f"duplicate column {column.name!r}")
        self.columns.append(column)
        for row in self.rows:
            row.append(None)
        return column

    def column_index(self, name) -> int:
        for index, column in enumerate(self.columns):
            if column.name == name:
                return index
        raise ColumnError(f"unknown column {name!r}")

    def column(self, name) -> Column:
        return self.columns[self.column_index(name)]

    # -- rows ---------------------------------------------------------------------
    def add_row(self, row):
        if isinstance(row, Mapping):
            unknown = set(row) - {c.name for c in self.columns}
            if unknown:
                raise ColumnError(f"unknown column(s): {', '.join(sorted(unknown))}")
            values = [row.get(c.name) for c in self.columns]
        else:
            values = list(row)
            if len(values) != len(self.columns):
                raise TableError(
                    f"row has {len(values)} values, table has {len(self.columns)} columns"
                )
        self.rows.append(values)
        return self

    def extend(self, rows):
        for row in rows:
            self.add_row(row)
        return self

    @classmethod
    def from_records(cls, records, title=None):
        """Build a table from a list of dicts, inferring column types."""
        records = list(records)
        names = []
        for record in records:
            for key in record:
                if key not in names:
                    names.append(key)
        columns = [infer_column(n, [r.get(n) for r in records]) for n in names]
        return cls(columns, title).extend(records)

    def __len__(self):
        return len(self.rows)

    def values(self, name):
        index = self.column_index(name)
        return [row[index] for row in self.rows]

    def records(self):
        names = [c.name for c in self.columns]
        return [dict(zip(names, row)) for row in self.rows]

    # -- transformations ---------------------------------------------------------------
    def copy(self, rows=None) -> "Table":
        table = Table(self.columns, self.title)
        table.rows = [list(r) for r in (self.rows if rows is None else rows)]
        return table

    def sort_by(self, name, reverse=False) -> "Table":
        """Return a new table sorted by column ``name``."""
        index = self.column_index(name)
        column = self.columns[index]
        rows = sorted(self.rows, key=lambda row: column.sort_key(row[index]), reverse=reverse)
        return self.copy(rows)

    def filter(self, predicate) -> "Table":
        """Rows for which ``predicate(record_dict)`` is true."""
        names = [c.name for c in self.columns]
        return self.copy([row for row in self.rows if predicate(dict(zip(names, row)))])

    def group_by(self, name):
        """List of ``(value, Table)`` in order of first appearance."""
        index = self.column_index(name)
        groups = {}
        for row in self.rows:
            groups.setdefault(row[index], []).append(row)
        return [(value, self.copy(rows)) for value, rows in groups.items()]

    def total(self, name):
        """Sum of the non-None values of a numeric column."""
        return sum(v for v in self.values(name) if v is not None)

    # -- output -------------------------------------------------------------------
    def render(self, fmt="plain", **options) -> str:
        """Render with a renderer from :mod:`tabulon.renderers`."""
        from .renderers import get_renderer

        return get_renderer(fmt, **options).render(self)

    def __str__(self):
        return self.render()
