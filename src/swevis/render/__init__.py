"""Code window -> PNG pages for a token budget, with a readability guard (see layout.py).

    render_window(path, start_line, text, ratio, tokenizer, image_family, settings=None) -> RenderResult
    save_pages(result, out_dir) -> list[str]
"""

from swevis.render.core import MissingGlyphs, RenderError, RenderResult, prepare_lines, read_window, render_window, save_pages
from swevis.render.settings import RenderSettings

__all__ = [
    "MissingGlyphs",
    "RenderError",
    "RenderResult",
    "RenderSettings",
    "prepare_lines",
    "read_window",
    "render_window",
    "save_pages",
]
