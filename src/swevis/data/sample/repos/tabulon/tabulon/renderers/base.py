"""Shared rendering steps: formatting cells, sizing columns, fitting text."""

from abc import ABC, abstractmethod

from ..columns import Align
from ..formatting import display_width, truncate
from ..layout import compute_widths
from ..wrap import wrap_text


class Renderer(ABC):
    """Abstract renderer.

    ``max_width`` limits the total width of the table (only wrappable columns
    shrink); ``show_header=False`` omits the header row.
    """

    gap = 2

    def __init__(self, max_width=None, show_header=True):
        self.max_width = max_width
        self.show_header = show_header

    def cells(self, table):
        """Header cells and body cells as formatted strings."""
        header = [c.header for c in table.columns]
        body = [[c.format(v) for c, v in zip(table.columns, row)] for row in table.rows]
        return header, body

    def fit(self, text, width, column):
        """Lines of one cell fitted into ``width`` cells."""
        lines = []
        for line in text.split("\n"):
            if display_width(line) <= width:
                lines.append(line)
            elif column.wrap:
                lines.extend(wrap_text(line, width))
            else:
                lines.append(truncate(line, width))
        return lines

    def layout(self, table):
        """Return ``(widths, header_lines, body_lines)``.

        ``header_lines`` is a list (one per column) of lists of lines, and
        ``body_lines`` a list of such rows.
        """
        header, body = self.cells(table)
        widths = compute_widths(table.columns, header, body, self.max_width, self.gap)
        fitted_header = [self.fit(h, w, c) for h, w, c in zip(header, widths, table.columns)]
        fitted_body = [
            [self.fit(cell, w, c) for cell, w, c in zip(row, widths, table.columns)]
            for row in body
        ]
        return widths, fitted_header, fitted_body

    @staticmethod
    def pad(text, width, align):
        """Pad ``text`` to ``width`` cells according to ``align``."""
        if align is Align.RIGHT:
            return text.rjust(width)
        if align is Align.CENTER:
            return text.center(width)
        return text.ljust(width)

    @staticmethod
    def physical_lines(cell_lines):
        """Split a row of multi-line cells into physical lines (padding with '')."""
        height = max((len(lines) for lines in cell_lines), default=1)
        return [
            [lines[i] if i < len(lines) else "" for lines in cell_lines]
            for i in range(height)
        ]

    @abstractmethod
    def render(self, table) -> str:
        """Return the table as text (ending with a newline)."""
