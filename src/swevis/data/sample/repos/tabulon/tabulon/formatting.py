"""Low-level text helpers: number formatting and display widths.

Display width differs from ``len()`` for East Asian wide characters (two
terminal cells each) and combining marks (zero cells).
"""

import unicodedata

ELLIPSIS = "…"


def char_width(char: str) -> int:
    """Number of terminal cells used by one character."""
    if unicodedata.combining(char):
        return 0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 1


def display_width(text: str) -> int:
    """Number of terminal cells used by ``text``."""
    return sum(char_width(c) for c in text)


def truncate(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """Cut ``text`` to at most ``width`` cells, ending in ``ellipsis`` if cut."""
    if display_width(text) <= width:
        return text
    budget = width - display_width(ellipsis)
    out, used = [], 0
    for char in text:
        w = char_width(char)
        if used + w > budget:
            break
        out.append(char)
        used += w
    return "".join(out) + ellipsis if budget >= 0 else ellipsis[:width]


def group_thousands(digits: str, sep: str = ",") -> str:
    """Insert ``sep`` between groups of three digits, counting from the right.

    >>> group_thousands("1234567")
    '1,234,567'
    """
    head = len(digits) % 3
    groups = [digits[:head]] if head else []
    groups.extend(digits[i:i + 3] for i in range(head, len(digits), 3))
    return sep.join(groups)


def format_number(value, decimals: int = 0, thousands: bool = True, sep: str = ",") -> str:
    """Format ``value`` with a fixed number of ``decimals`` and digit grouping."""
    text = f"{value:.{decimals}f}"
    int_part, dot, frac = text.partition(".")
    if thousands:
        int_part = group_thousands(int_part, sep)
    return int_part + dot + frac


def format_percent(value, decimals: int = 1) -> str:
    """``0.1234`` -> ``'12.3%'``."""
    return format_number(value * 100, decimals, thousands=False) + "%"


def format_bytes(size: int) -> str:
    """Human readable byte size with binary prefixes: ``1536`` -> ``'1.5 KiB'``."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    value = float(size)
    for unit in units:
        if abs(value) < 1024 or unit == units[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
