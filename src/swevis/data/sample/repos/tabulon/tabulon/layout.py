"""Column width computation."""

from .errors import RenderError


def natural_widths(header_cells, body_rows):
    """Widest cell (header included) of every column, line by line."""
    widths = [max((len(line) for line in h.split("\n")), default=0) for h in header_cells]
    for row in body_rows:
        for i, cell in enumerate(row):
            for line in cell.split("\n"):
                widths[i] = max(widths[i], len(line))
    return widths


def compute_widths(columns, header_cells, body_rows, max_total=None, gap=2, min_width=3):
    """Final width of each column.

    Each column gets its natural width, limited by its ``max_width``. If
    ``max_total`` is given and the table (including ``gap`` cells between
    columns) is still wider, the widest wrappable columns are shrunk one cell at
    a time down to ``min_width``.
    """
    widths = natural_widths(header_cells, body_rows)
    for i, column in enumerate(columns):
        if column.max_width is not None:
            widths[i] = max(1, min(widths[i], column.max_width))
    if max_total is None:
        return widths
    overhead = gap * (len(widths) - 1)
    while sum(widths) + overhead > max_total:
        candidates = [i for i, c in enumerate(columns) if c.wrap and widths[i] > min_width]
        if not candidates:
            raise RenderError(
                f"table needs {sum(widths) + overhead} cells, only {max_total} allowed"
            )
        widest = max(candidates, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths
