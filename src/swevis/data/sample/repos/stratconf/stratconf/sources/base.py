"""Abstract sources."""

import os
from abc import ABC, abstractmethod

from ..errors import SourceError
from ..interpolate import resolve


class Source(ABC):
    """Something that produces a configuration tree."""

    name = "source"

    @abstractmethod
    def load(self):
        """Return the configuration tree of this source (a dict)."""

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


class FileSource(Source):
    """A source backed by a text file.

    Subclasses implement :meth:`parse`. A missing file is an error unless the
    source was created with ``optional=True``, in which case it is empty.
    """

    encoding = "utf-8"

    def __init__(self, path, optional=False):
        self.path = os.fspath(path)
        self.optional = optional
        self.name = self.path

    def read(self):
        try:
            with open(self.path, encoding=self.encoding) as fh:
                return fh.read()
        except FileNotFoundError:
            if self.optional:
                return None
            raise SourceError(self.path, "file not found") from None

    @abstractmethod
    def parse(self, text):
        """Turn the file's text into a tree."""

    def load(self):
        text = self.read()
        if text is None:
            return {}
        try:
            tree = self.parse(text)
        except SourceError:
            raise
        except Exception as exc:  # parser specific errors
            raise SourceError(self.path, str(exc)) from exc
        return resolve(tree)
