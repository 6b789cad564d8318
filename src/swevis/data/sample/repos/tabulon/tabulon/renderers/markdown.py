"""GitHub-flavoured Markdown pipe tables."""

from ..columns import Align
from .base import Renderer


def escape_cell(text: str) -> str:
    """Escape pipes and turn newlines into ``<br>`` so a cell stays on one line."""
    return text.replace("|", "\\|").replace("\n", "<br>")


class MarkdownRenderer(Renderer):
    """Pipe table with alignment markers in the separator row."""

    def cells(self, table):
        header, body = super().cells(table)
        return [escape_cell(h) for h in header], [[escape_cell(c) for c in row] for row in body]

    @staticmethod
    def rule(width, align):
        width = max(width, 3)
        if align is Align.RIGHT:
            return "-" * (width - 1) + ":"
        if align is Align.CENTER:
            return ":" + "-" * (width - 2) + ":"
        return "-" * width

    def row(self, cells, widths, columns):
        padded = [self.pad(c, max(w, 3), col.align) for c, w, col in zip(cells, widths, columns)]
        return "| " + " | ".join(padded) + " |"

    def render(self, table):
        widths, header, body = self.layout(table)
        columns = table.columns
        out = []
        header_cells = [" ".join(lines) for lines in header]
        if not self.show_header:
            header_cells = [""] * len(columns)
        out.append(self.row(header_cells, widths, columns))
        out.append("| " + " | ".join(self.rule(w, c.align) for w, c in zip(widths, columns)) + " |")
        for row in body:
            out.append(self.row(["<br>".join(lines) if len(lines) > 1 else lines[0]
                                 for lines in row], widths, columns))
        return "\n".join(out) + "\n"
