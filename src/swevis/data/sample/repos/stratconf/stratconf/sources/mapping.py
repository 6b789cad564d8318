"""In-memory mappings as a source (handy for defaults and tests)."""

from ..tree import unflatten
from .base import Source


class DictSource(Source):
    """Wrap a dict. With ``flat=True`` dotted keys are expanded first."""

    def __init__(self, data, name="dict", flat=False):
        self.data = unflatten(data) if flat else data
        self.name = name

    def load(self):
        return self.data
