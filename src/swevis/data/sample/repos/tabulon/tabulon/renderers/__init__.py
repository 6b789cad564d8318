"""Renderers turn a :class:`~tabulon.table.Table` into text."""

from ..errors import RenderError
from .base import Renderer
from .markdown import MarkdownRenderer
from .plain import PlainRenderer
from .rst import RstRenderer

RENDERERS = {
    "plain": PlainRenderer,
    "markdown": MarkdownRenderer,
    "md": MarkdownRenderer,
    "rst": RstRenderer,
}


def get_renderer(name, **options) -> Renderer:
    """Instantiate the renderer registered under ``name``."""
    try:
        cls = RENDERERS[name]
    except KeyError:
        raise RenderError(
            f"unknown format {name!r}; choose one of {', '.join(sorted(RENDERERS))}"
        ) from None
    return cls(**options)


__all__ = ["MarkdownRenderer", "PlainRenderer", "RENDERERS", "Renderer", "RstRenderer",
           "get_renderer"]
