"""Plain text tables separated by spaces, with a dashed header rule."""

from .base import Renderer


class PlainRenderer(Renderer):
    """::

        name    size
        ------  ----
        alpha     12
    """

    def __init__(self, max_width=None, show_header=True, rule="-"):
        super().__init__(max_width, show_header)
        self.rule = rule

    def format_line(self, cells, widths, columns):
        sep = " " * self.gap
        padded = [self.pad(cell, w, c.align) for cell, w, c in zip(cells, widths, columns)]
        return sep.join(padded).rstrip()

    def render(self, table):
        widths, header, body = self.layout(table)
        out = []
        if table.title:
            out.append(table.title)
        if self.show_header:
            for line in self.physical_lines(header):
                out.append(self.format_line(line, widths, table.columns))
            out.append((" " * self.gap).join(self.rule * w for w in widths))
        for row in body:
            for line in self.physical_lines(row):
                out.append(self.format_line(line, widths, table.columns))
        return "\n".join(out) + "\n"
