"""Word wrapping that respects display width."""

from .formatting import char_width, display_width


def _split_long_word(word: str, width: int):
    pieces, current, used = [], [], 0
    for char in word:
        w = char_width(char)
        if used + w > width and current:
            pieces.append("".join(current))
            current, used = [], 0
        current.append(char)
        used += w
    if current:
        pieces.append("".join(current))
    return pieces


def wrap_text(text: str, width: int):
    """Wrap ``text`` into lines of at most ``width`` cells.

    Existing newlines are kept. Words longer than ``width`` are broken.
    An empty string gives ``[""]``.
    """
    if width < 1:
        raise ValueError("width must be at least 1")
    lines = []
    for paragraph in text.split("\n"):
        current, used = [], 0
        for word in paragraph.split():
            w = display_width(word)
            if w > width:
                if current:
                    lines.append(" ".join(current))
                    current, used = [], 0
                *full, last = _split_long_word(word, width)
                lines.extend(full)
                current, used = [last], display_width(last)
                continue
            needed = w if not current else used + 1 + w
            if needed > width:
                lines.append(" ".join(current))
                current, used = [word], w
            else:
                current.append(word)
                used = needed
        lines.append(" ".join(current))
    return lines
