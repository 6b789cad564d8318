"""reStructuredText simple tables."""

from ..errors import RenderError
from .base import Renderer


class RstRenderer(Renderer):
    """::

        =====  ====
        name   size
        =====  ====
        alpha    12
        =====  ====
    """

    def render(self, table):
        widths, header, body = self.layout(table)
        if not table.columns:
            raise RenderError("an rst table needs at least one column")
        border = (" " * self.gap).join("=" * w for w in widths)
        sep = " " * self.gap

        def emit(row):
            lines = []
            for physical in self.physical_lines(row):
                cells = [self.pad(cell, w, c.align)
                         for cell, w, c in zip(physical, widths, table.columns)]
                lines.append(sep.join(cells).rstrip())
            return lines

        out = [border]
        if self.show_header:
            out.extend(emit(header))
            out.append(border)
        for row in body:
            out.extend(emit(row))
        out.append(border)
        return "\n".join(out) + "\n"
